// Columns that hold people's names or contact details (an assessor's owners, mailing addresses), told by
// their header and by their values: a header cut to 10 characters by a shapefile's .dbf (`Property_O`)
// escapes any list of names, but its values ("SMITH JOHN & MARY", "ELM REALTY TRUST", "ACME LLC") do not.
// Such a column is listed by name only: its values are never sampled, printed, logged or offered as
// evidence by any command (docs/data.md, "Personal data").

/** Headers of owner, taxpayer, mailing and contact columns, whole or cut short (.dbf: 10 characters). */
const PERSONAL_HEADER =
  /(owner|own_?nam|own1|own2|^own_|_own(er?)?$|^ownr|prop(erty)?_?o(w(ne?)?)?$|taxpayer|tax_?payer|^taxpaye|mail(ing)?_?(addr|name|to|city|street)|^mail|grantor|grantee|buyer|seller|resident|occupant|contact|phone|e_?mail|first_?name|last_?name|surname|full_?name|person|care_?of|^c_?o$|in_?care)/i;

/** Words and signs that mark an owner's name: a couple ("&"), a company or trust, "et al". */
const OWNER_MARK =
  /(\s&\s|\bL\.?L\.?C\b|\bTRUST(EE)?S?\b|\bTRS?\b|\bINC\b|\bCORP(ORATION)?\b|\bET\s?AL\b|\bETUX\b|\bETVIR\b|\bESTATE OF\b|\bL\.?T\.?D\b|\bL\.?L\.?P\b|\bREVOCABLE\b|\bLIVING TR)/i;

/** A person's name as assessors write it: two to four words of letters ("SMITH JOHN A", "O'BRIEN, MARY"). */
const PERSON_NAME = /^[A-Z][A-Z'’.-]+,?(\s+[A-Z][A-Z'’.-]*){1,3}$/i;

/** The last word of a street name: a value ending so is an address, not a person. */
const STREET_WORD = /\s(ST|STREET|AVE?|AVENUE|RD|ROAD|DR|DRIVE|LN|LANE|CT|COURT|PL|PLACE|WAY|BLVD|TER|TERRACE|PKWY|HWY|CIR|SQ|PARK|ROW)\.?$/i;

export function isPersonalHeader(name: string): boolean {
  return PERSONAL_HEADER.test(name);
}

/**
 * Whether the values look like owners' names: enough of them carry an owner's mark ("&", LLC, TRUST,
 * INC, ETAL), or most are shaped like people's names among many distinct values (a district name
 * column has few; a street column ends in ST, AVE).
 */
export function valuesLookPersonal(values: readonly string[]): boolean {
  const distinct = [...new Set(values.map((v) => v.trim()).filter(Boolean))].slice(0, 2000);
  if (distinct.length < 3) return false;
  const marked = distinct.filter((v) => OWNER_MARK.test(v)).length;
  if (marked >= 3 && marked / distinct.length >= 0.05) return true;
  const named = distinct.filter((v) => PERSON_NAME.test(v) && !STREET_WORD.test(v) && !/\d/.test(v)).length;
  return distinct.length >= 20 && named / distinct.length >= 0.6 && marked > 0;
}

/** A personal column, by its header or by its values. */
export function isPersonalColumn(name: string, values: readonly string[]): boolean {
  return isPersonalHeader(name) || valuesLookPersonal(values);
}

/** A record's properties with every personal column dropped (for an example in a message). */
export function withoutPersonal(props: Record<string, unknown>, personal: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(props).filter(([k, v]) => !personal.has(k) && !isPersonalHeader(k) && !(typeof v === 'string' && OWNER_MARK.test(v))),
  );
}
