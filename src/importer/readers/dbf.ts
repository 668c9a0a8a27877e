// dBASE tables (a shapefile's .dbf) read through an allow-list of columns: a column not on the list is
// never decoded, so its bytes never become a string in this process (Somerville's parcels carry an
// `Owner` column of people's names; docs/data.md, "Personal data"). Records come back in file order,
// aligned with the shapefile's features by index.

/** One column as the table's header declares it. */
export interface DbfField {
  name: string;
  type: string;
  offset: number;
  length: number;
  decimals: number;
}

export interface DbfTable {
  fields: DbfField[];
  recordCount: number;
  /** The allowed columns' values per record (numbers for N/F, booleans for L, trimmed text otherwise; null when blank). */
  records: Record<string, unknown>[];
}

/** The header alone: the column names and types (no record is decoded). */
export function readDbfFields(buf: Uint8Array): { fields: DbfField[]; recordCount: number; headerLength: number; recordLength: number } {
  if (buf.length < 32) throw new Error('not a dBASE table: shorter than its header');
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const recordCount = view.getUint32(4, true);
  const headerLength = view.getUint16(8, true);
  const recordLength = view.getUint16(10, true);
  const fields: DbfField[] = [];
  let offset = 1; // byte 0 of a record is its deletion flag
  for (let at = 32; at + 32 <= headerLength && buf[at] !== 0x0d; at += 32) {
    let end = at;
    while (end < at + 11 && buf[end] !== 0) end++;
    const name = new TextDecoder('latin1').decode(buf.subarray(at, end));
    const length = buf[at + 16]!;
    fields.push({ name, type: String.fromCharCode(buf[at + 11]!), offset, length, decimals: buf[at + 17]! });
    offset += length;
  }
  if (offset !== recordLength) throw new Error(`not a dBASE table: its columns add up to ${offset} bytes, its records are ${recordLength}`);
  if (headerLength + recordCount * recordLength > buf.length)
    throw new Error(`a truncated dBASE table: ${recordCount} records of ${recordLength} bytes do not fit in ${buf.length} bytes`);
  return { fields, recordCount, headerLength, recordLength };
}

/**
 * Decodes the allowed columns of every record. A column on the list that the table lacks is an error
 * naming the columns it has (a renamed column must not load as empty).
 */
export function readDbf(buf: Uint8Array, allow: readonly string[], encoding = 'utf-8'): DbfTable {
  const { fields, recordCount, headerLength, recordLength } = readDbfFields(buf);
  const wanted = allow.map((name) => {
    const f = fields.find((x) => x.name === name);
    if (!f) throw new Error(`the table has no column ${name} (its columns: ${fields.map((x) => x.name).join(', ')})`);
    return f;
  });
  const decoder = new TextDecoder(encoding);
  const records: Record<string, unknown>[] = new Array(recordCount);
  for (let i = 0; i < recordCount; i++) {
    const base = headerLength + i * recordLength;
    const rec: Record<string, unknown> = {};
    for (const f of wanted) {
      const raw = decoder.decode(buf.subarray(base + f.offset, base + f.offset + f.length)).trim();
      rec[f.name] = fieldValue(f.type, raw);
    }
    records[i] = rec;
  }
  return { fields, recordCount, records };
}

function fieldValue(type: string, raw: string): unknown {
  if (raw === '') return null;
  switch (type) {
    case 'N':
    case 'F': {
      const n = Number(raw);
      return Number.isFinite(n) ? n : null;
    }
    case 'L':
      return /^[YyTt]$/.test(raw) ? true : /^[NnFf]$/.test(raw) ? false : null;
    default:
      return raw;
  }
}
