// What a report says, before any layout: sections of headings, paragraphs, value tables and the map.
// Audience and detail change the words and the order here; the PDF renderer only draws the outline.
// Pure: the same input gives the same outline (preview returns it as is).
import { STATUS_MEANINGS, type ValueStatus } from '../core/statuses.ts';
import { isStatedNoLimit, VALUE_STATUS_WORDS, valueWords } from '../core/value-words.ts';
import type { ReportAudience, ReportInput, ReportValue } from './report-input.ts';

export interface ValueRow {
  key: string;
  label: string;
  /** The value in words with its unit ("85 ft", "Unknown", "No limit in the bylaw"). */
  value: string;
  status: ValueStatus;
  /** The status said in words, for a reader who does not know the status names. */
  statusWords: string;
  /** "Section 5.31.2, Cambridge Zoning Ordinance (2024-06-10) <url>", when cited. */
  citation: string | null;
  /** The bylaw's condition or the service's note, when there is one. */
  note: string | null;
}

export type Block =
  | { kind: 'paragraph'; text: string }
  | { kind: 'quote'; label: string; text: string }
  | { kind: 'values'; rows: ValueRow[]; withCitations: boolean }
  | { kind: 'list'; items: string[] }
  | { kind: 'map' };

export interface Section {
  heading: string;
  blocks: Block[];
}

export interface ReportOutline {
  title: string;
  subtitle: string;
  /** Where each build lot's district came from (the zoning map, or as stated), printed under the subtitle on page 1. */
  districtSource?: string;
  sections: Section[];
}

/** Each status in a few plain words (the report prints these next to every value): the wording every surface shares. */
export const STATUS_WORDS = Object.fromEntries(Object.entries(VALUE_STATUS_WORDS).map(([k, w]) => [k, w[0]!.toUpperCase() + w.slice(1)])) as Record<
  ValueStatus,
  string
>;

/** The value in words with its unit, as every surface words it (src/core/value-words.ts). */
function formatValue(v: ReportValue['value']): string {
  return valueWords(v).says;
}

function citationText(v: ReportValue['value']): string | null {
  const c = v.citation;
  if (!c) return null;
  return `"${c.quote}" (${c.documentTitle}, § ${c.section}, edition ${c.date}; check it at ${c.href})`;
}

function row(v: ReportValue): ValueRow {
  return {
    key: v.key,
    label: v.label,
    value: formatValue(v.value),
    status: v.value.status,
    statusWords: STATUS_WORDS[v.value.status],
    citation: citationText(v.value),
    note: [v.value.condition ? `Condition: ${v.value.condition}` : v.value.note, valueWords(v.value).analysis].filter(Boolean).join(' '),
  };
}

/** The capacity numbers an investor brief leads with, in this order when present. */
const CAPACITY_KEYS = ['maxFloorAreaSqft', 'maxDwellingUnits', 'maxDwellingUnitsByDensity', 'maxFootprintSqft', 'maxHeightFt', 'maxHeightStoreys', 'maxFar'];
/** What a resident asks first: how tall, how close, how much of the lot, how many homes. */
const RESIDENT_KEYS = ['maxHeightFt', 'maxHeightStoreys', 'minFrontYardFt', 'minSideYardFt', 'minRearYardFt', 'maxLotCoveragePct', 'maxDwellingUnits'];

function pick(envelope: ReportValue[], keys: string[]): ReportValue[] {
  return keys.map((k) => envelope.find((v) => v.key === k)).filter((v): v is ReportValue => v !== undefined);
}

const AUDIENCE_NAMES: Record<ReportAudience, string> = { investor: 'Investor', owner: 'Owner', board: 'Board', resident: 'Resident' };

/** One sentence a resident can read: what the zoning allows, in plain words, without status names. */
/** Why a derived value could not be worked out: the analysis's own note when it says so, else value-words' reason. */
function notCalculatedWhy(v: ReportValue): string | null {
  const w = valueWords(v.value);
  if (!w.why) return null;
  const note = v.value.note?.startsWith('Not calculated:') ? v.value.note.split(/(?<=\.)\s/)[0]! : w.why;
  return note.replace(/^Not calculated:\s*/, '');
}

function residentSentence(v: ReportValue): string {
  const val = formatValue(v.value);
  const why = notCalculatedWhy(v);
  if (why) return `${v.label} is not calculated: ${why}`;
  if (v.value.status === 'no_limit_in_bylaw') return `${v.label}: the zoning bylaw sets no limit for this.`;
  if (isStatedNoLimit(v.value)) return `${v.label}: ${formatValue(v.value).toLowerCase()}, not confirmed in the bylaw; siteline does not rely on it.`;
  if (v.value.value === null) return `${v.label}: not known from the sources siteline holds (${STATUS_WORDS[v.value.status].toLowerCase()}).`;
  const how = STATUS_MEANINGS[v.value.status].authoritative ? 'the bylaw allows' : 'siteline estimates (not confirmed in the bylaw)';
  return `${v.label}: ${how} ${val}.`;
}

function unknownsOf(input: ReportInput): string[] {
  // Every value the report shows as unknown: an unknown status, or a status that counts as known (an
  // unverified default) without a number. The bylaw's own "no limit" is not an unknown.
  const fromValues = input.envelope
    .filter((v) => STATUS_MEANINGS[v.value.status].unknown || (v.value.value === null && v.value.status !== 'no_limit_in_bylaw'))
    .map((v) =>
      notCalculatedWhy(v)
        ? `${v.label} is not calculated: ${notCalculatedWhy(v)}`
        : isStatedNoLimit(v.value)
          ? `${v.label} is not confirmed: ${formatValue(v.value)} (${STATUS_WORDS[v.value.status].toLowerCase()}); the analysis does not compute on it.`
          : STATUS_MEANINGS[v.value.status].unknown
            ? `${v.label} is unknown: ${STATUS_MEANINGS[v.value.status].nullMeans.replace(/^Unknown[^:]*:\s*/, '')}`
            : `${v.label} is unknown: the sources siteline holds give no figure for it (${STATUS_WORDS[v.value.status].toLowerCase()}).`,
    );
  return [...input.unknowns, ...fromValues];
}

// Long because: the report's sections in the order the PDF prints them, one block each.
export function buildOutline(input: ReportInput): ReportOutline {
  const { project, audience, detail } = input;
  const detailed = detail === 'detailed';
  const build = input.lots.filter((l) => l.role === 'build');
  const lotArea = build.reduce((s, l) => s + (l.areaSqft ?? 0), 0);
  const areaKnown = build.every((l) => l.areaSqft !== null);
  const districts = [...new Set(build.flatMap((l) => l.districts))];
  const overlays = [...new Set(build.flatMap((l) => l.overlays))];
  const title = input.planName ? `${project.name}: ${input.planName}` : project.name;
  // The address usually names its place already ("30 Hubbard Ave, Cambridge, MA"): then once.
  const where = project.address?.toLowerCase().includes(project.place.toLowerCase()) ? project.address : `${project.address}, ${project.place}`;
  const subtitle = `${where} · ${AUDIENCE_NAMES[audience]} report, ${detail}`;

  const siteText =
    `${build.length === 1 ? 'One lot' : `${build.length} lots`} (${build.map((l) => l.label ?? l.lotId).join(', ')})` +
    (areaKnown ? `, ${lotArea.toLocaleString('en-US', { maximumFractionDigits: 0 })} sq ft in total` : ', total area not known for every lot') +
    `. Zoning: ${districts.length ? districts.join(', ') : 'no district found'}` +
    (overlays.length ? `; overlays: ${overlays.join(', ')}.` : '; no overlay.');
  // Where the district came from (the zoning map, or the caller's statement where the place has no
  // zoning map), under the title on page 1.
  const sourced = [...new Set(build.filter((l) => l.districtSource && l.districts.length).map((l) => `District ${l.districts[0]}: ${l.districtSource}.`))];
  const districtSource = sourced.length ? sourced.join(' ') : districts.length ? '' : 'No zoning district was found for the build lots.';

  const sections: Section[] = [];
  if (input.request?.trim())
    sections.push({ heading: 'What was asked', blocks: [{ kind: 'quote', label: 'Request (quoted as written)', text: input.request.trim() }] });

  const allRows = input.envelope.map(row);
  const unknowns = unknownsOf(input);
  const statusNote =
    'Every value is shown with its status in words: "Cited" values were read from the bylaw with the section named; "Unknown" means unknown, never "no limit" and never zero; "Not calculated" is a value worked out from others when one of them has no number, with the reason.';

  if (audience === 'investor') {
    const capacity = pick(input.envelope, CAPACITY_KEYS).map(row);
    sections.push({
      heading: 'Capacity at a glance',
      blocks: [
        {
          kind: 'paragraph',
          text: capacity.length ? 'The numbers that bound what can be built, first.' : 'No capacity figure could be computed for this site.',
        },
        ...(capacity.length ? [{ kind: 'values' as const, rows: capacity, withCitations: detailed }] : []),
      ],
    });
    sections.push({ heading: 'The site', blocks: [{ kind: 'paragraph', text: siteText }, { kind: 'map' }] });
  } else if (audience === 'resident') {
    const plain = pick(input.envelope, RESIDENT_KEYS);
    sections.push({
      heading: 'What the zoning allows here, in plain words',
      blocks: [
        {
          kind: 'paragraph',
          text: `${siteText} Zoning is the set of local rules on how tall, how large and how close to the street and neighbours a building may be.`,
        },
        { kind: 'list', items: (plain.length ? plain : input.envelope.slice(0, 6)).map(residentSentence) },
        { kind: 'map' },
      ],
    });
  } else {
    sections.push({
      heading: audience === 'board' ? 'The site and its zoning' : 'Your site',
      blocks: [
        { kind: 'paragraph', text: audience === 'owner' ? `${siteText} Below is what the rules let you build, value by value.` : siteText },
        { kind: 'map' },
      ],
    });
  }

  const envelopeRows = detailed || audience === 'board' ? allRows : allRows.filter((r) => !STATUS_MEANINGS[r.status].unknown || r.key.startsWith('max'));
  sections.push({
    heading: detailed ? 'Building envelope, value by value' : 'Building envelope',
    blocks: [
      { kind: 'paragraph', text: statusNote },
      { kind: 'values', rows: envelopeRows, withCitations: detailed || audience === 'board' },
    ],
  });

  if (detailed && input.permittedUses?.length) {
    sections.push({
      heading: 'Permitted uses',
      blocks: [
        {
          kind: 'list',
          items: input.permittedUses.map(
            (u) =>
              `${u.use}: ${u.permission.replace(/_/g, ' ')} (${STATUS_WORDS[u.status]}${u.citation ? `; section ${u.citation.section}` : ''})${u.condition ? `. Condition: ${u.condition}` : ''}`,
          ),
        },
      ],
    });
  }

  sections.push({
    heading: 'What is unknown',
    blocks: [
      unknowns.length ? { kind: 'list', items: unknowns } : { kind: 'paragraph', text: 'Every value in this report has a known status; none is unknown.' },
    ],
  });

  if (detailed) {
    const cited = allRows.filter((r) => r.citation);
    sections.push({
      heading: 'Citations',
      blocks: [
        cited.length
          ? { kind: 'list', items: cited.map((r) => `${r.label}: ${r.citation}`) }
          : { kind: 'paragraph', text: 'No value in this report is cited.' },
      ],
    });
  }

  sections.push({
    heading: 'Sources, vintages and licences',
    blocks: [
      {
        kind: 'list',
        items: input.sources.map(
          (s) =>
            `${s.name} (${s.layer}), vintage ${s.vintage}, licence ${s.licence}${s.attribution ? `. ${s.attribution}` : ''}${detailed && s.url ? `. ${s.url}` : ''}`,
        ),
      },
      {
        kind: 'paragraph',
        text: `Composed by siteline on ${input.generatedAt.slice(0, 10)}. Not legal advice: confirm with the authority having jurisdiction before relying on any value.`,
      },
    ],
  });

  return { title, subtitle, ...(districtSource ? { districtSource } : {}), sections };
}
