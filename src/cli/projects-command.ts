// `siteline projects list|create|show|attach|analyze|update|undo`: the caller's projects, through the
// MCP project tools (saveToProject, updateProject, runFeasibilityAnalysis, getProjectContext) on the
// service with the logged-in identity, so the CLI sees exactly what an agent sees. `--json` prints the
// tool's structuredContent unchanged; the readable view is rendered from it.
// A <project> argument is a projectId (UUID) or a name (case-insensitive; exact beats partial); a name
// that matches several projects lists the candidates and chooses nothing (exit 2).
// Exit 0 ok; 1 the tool refused (e.g. an undo in conflict); 2 bad argument, unknown or ambiguous
// project; 4 login needed; 5 service unreachable.
import { JSON_FLAG, URL_FLAG, UsageError, type Command, type CommandInput, type Flag } from './command.ts';
import { EXIT } from './exit-codes.ts';
import { PROJECT_TYPOLOGIES } from '../projects/project-fields.ts';
import { err, out, type Io } from './output.ts';
import { ServiceClient, type ToolAnswer } from './service-client.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LIFECYCLE = 'prospect, due_diligence, entitlement, design, permitting, construction, completed, on_hold, abandoned';
const PREVIEW_FLAG: Flag = { name: 'preview', description: 'Show the changes the write would make, and write nothing' };
const PROJECT_ARG = 'the project: its projectId or its name';

/** `projectId` for a UUID, else `project` (a name the service matches). */
function projectRef(p: string): Record<string, string> {
  if (!p.trim()) throw new UsageError('the project is empty');
  return UUID.test(p) ? { projectId: p } : { project: p };
}

// biome-ignore lint/suspicious/noExplicitAny: MCP structured content, read by the field names the tools document
type Structured = Record<string, any>;

/**
 * Calls one tool and prints the answer: --json the structuredContent as is, else render(structured).
 * A tool error goes to stderr (its JSON, if any, on stdout under --json): exit 2 when the caller's
 * argument is at fault (bad_input, not_found, invalid arguments), else 1. Candidates: exit 2.
 */
async function callAndPrint(
  io: Io,
  flags: CommandInput['flags'],
  tool: string,
  args: Record<string, unknown>,
  render: (s: Structured) => string,
): Promise<number> {
  const client = ServiceClient.forUser({ url: flags.url as string | undefined, env: io.env });
  let answer: ToolAnswer;
  try {
    answer = await client.callTool(tool, args);
  } finally {
    await client.close();
  }
  const s: Structured = answer.structured ?? {};
  if (flags.json && answer.structured) out(io, JSON.stringify(answer.structured, null, 2));
  if (answer.isError) {
    const code = (s.error as { code?: string } | undefined)?.code;
    err(io, `${io.errColour.red('error:')} ${answer.text || `${tool} failed`}`);
    return code === 'bad_input' || code === 'not_found' || /^Invalid arguments/.test(answer.text) ? EXIT.usage : EXIT.failure;
  }
  if (s.action === 'candidates') {
    if (!flags.json) {
      err(
        io,
        `${io.errColour.red('error:')} "${s.query}" matches ${s.candidates.length} of your projects; none was chosen. Pass the projectId of the one you mean:`,
      );
      for (const c of s.candidates) err(io, `  ${c.projectId}  ${c.name}  (${c.lifecycleStatus})`);
    }
    return EXIT.usage;
  }
  if (!flags.json) out(io, render(s));
  return EXIT.ok;
}

function projectLine(p: Structured): string {
  return `${p.projectId}  ${p.name}  (${p.lifecycleStatus ?? ''})${p.address ? `  ${p.address}` : ''}`;
}

function changesText(changes: { field: string; before: unknown; after: unknown }[] | undefined): string[] {
  if (!changes?.length) return ['  no changes'];
  const v = (x: unknown) => (x === null || x === undefined ? '—' : typeof x === 'object' ? JSON.stringify(x) : String(x));
  return changes.map((c) => `  ${c.field}: ${v(c.before)} → ${v(c.after)}`);
}

/** A write's answer: preview diff, or the receipt (with its id, for undo). */
function renderWrite(verb: string) {
  return (s: Structured): string => {
    const lines: string[] = [];
    if (s.preview) {
      lines.push(`Preview (nothing written): ${verb}`);
      if (s.wouldRestore) lines.push(`  would restore: ${JSON.stringify(s.wouldRestore)}`);
      else lines.push(...changesText(s.changes ?? s.receipt?.changes));
      if (s.undoable === false) lines.push(`  would be refused: ${s.refusal}`);
      return lines.join('\n');
    }
    if (s.note && !s.receipt) return `${s.note}${s.project ? `\n${projectLine(s.project)}` : ''}`;
    if (s.project) lines.push(`${verb}: ${projectLine(s.project)}`);
    else lines.push(`${verb}.`);
    if (s.receipt) {
      lines.push(`Receipt ${s.receipt.receiptId}${s.idempotentReplay ? ' (replayed: nothing written)' : ''}`);
      lines.push(...changesText(s.receipt.changes));
    }
    for (const w of (s.warnings ?? []) as string[]) lines.push(`warning: ${w}`);
    return lines.join('\n');
  };
}

function renderListed(s: Structured): string {
  const projects = (s.projects ?? []) as Structured[];
  if (!projects.length) return 'No projects yet. Create one with `siteline projects create <name> --address "<address>"`.';
  return [...projects.map(projectLine), ...(s.hasMore ? [`(${projects.length} of ${s.total} shown)`] : [])].join('\n');
}

function renderContext(s: Structured): string {
  const status = s.agentStatus?.status ?? 'unknown';
  if (s.recheck) return [`${s.project.name} (${s.project.projectId})`, `Analysis: ${status}. ${s.note}`].join('\n');
  const lines: string[] = [
    projectLine(s.project),
    `Analysis: ${status}${s.agentStatus?.inputsChanged ? ' (the inputs changed since: run `siteline projects analyze` again)' : ''}`,
  ];
  if (s.agentStatus?.error) lines.push(`  error: ${s.agentStatus.error}`);
  if (s.memoryDigest) lines.push('', String(s.memoryDigest));
  for (const d of (s.documents?.items ?? []) as Structured[]) lines.push(`reference: ${d.title} (${d.sectionUuid}) ${d.sourceUrl ?? ''}`);
  return lines.join('\n');
}

const withJsonUrl = (...f: Flag[]): Flag[] => [...f, JSON_FLAG, URL_FLAG];

function limit(flags: CommandInput['flags'], name: string, dflt: number, max: number): number {
  const raw = flags[name];
  if (raw === undefined) return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new UsageError(`--${name} needs a whole number from 0 to ${max}`);
  return n;
}

function coordinate(flags: CommandInput['flags'], name: string): number | undefined {
  if (flags[name] === undefined) return undefined;
  const n = Number(flags[name]);
  if (!Number.isFinite(n)) throw new UsageError(`--${name} needs a number`);
  return n;
}

export const projectsCommand: Command = {
  name: 'projects',
  summary: 'Your projects: create, attach lots, run the feasibility analysis, update, undo',
  usage: 'projects <command> [flags]',
  description:
    'Through the MCP project tools on the service, as the logged-in user (`siteline login` first).\n' +
    '<project> is a projectId or a name (case-insensitive, exact beats partial); a name matching several\n' +
    "projects lists the candidates and chooses nothing (exit 2). --json prints the tool's JSON unchanged.\n\n" +
    'Exit 0 ok, 1 refused by the service (e.g. an undo in conflict), 2 bad argument or unknown/ambiguous\n' +
    'project, 4 login needed, 5 service unreachable.',
  subcommands: [
    {
      name: 'list',
      summary: 'Your projects, most recently updated first (at most 50)',
      usage: 'projects list [--json]',
      flags: withJsonUrl(),
      run: ({ flags, io }) => callAndPrint(io, flags, 'getProjectContext', { documentsLimit: 0, evidenceLimit: 0 }, renderListed),
    },
    {
      name: 'create',
      summary: 'Create a project on an address (its lot is attached) or on coordinates',
      usage: 'projects create <name> (--address "<address>" | --lat N --lng N) [--external-ref SYS:ID] [--preview] [--json]',
      flags: withJsonUrl(
        { name: 'address', value: 'ADDRESS', description: 'Street address (geocoded by the service unless --lat/--lng are given)' },
        { name: 'lat', value: 'N', description: 'Latitude (with --lng: used as is, never re-geocoded)' },
        { name: 'lng', value: 'N', description: 'Longitude' },
        { name: 'external-ref', value: 'SYS:ID', description: 'Your id for it in another system, e.g. procore:12345' },
        { name: 'idempotency-key', value: 'KEY', description: 'Retry key: the same key and arguments return the first receipt' },
        PREVIEW_FLAG,
      ),
      args: { min: 1, max: 1, name: 'the project name, e.g. siteline projects create "Acorn St" --address "11 Acorn St, Cambridge, MA"' },
      examples: ['siteline projects create "Acorn St" --address "11 Acorn St, Cambridge, MA"'],
      run: ({ args: [name], flags, io }) => {
        if (!name!.trim()) throw new UsageError('the name is empty');
        const lat = coordinate(flags, 'lat');
        const lng = coordinate(flags, 'lng');
        if ((lat === undefined) !== (lng === undefined)) throw new UsageError('--lat and --lng go together');
        if (flags.address === undefined && lat === undefined) throw new UsageError('give --address "<address>" or --lat and --lng');
        return callAndPrint(
          io,
          flags,
          'saveToProject',
          {
            action: 'create',
            name,
            preview: flags.preview === true,
            ...(flags.address !== undefined ? { address: flags.address } : {}),
            ...(lat !== undefined ? { lat, lng } : {}),
            ...(flags['external-ref'] !== undefined ? { externalRef: flags['external-ref'] } : {}),
            ...(flags['idempotency-key'] !== undefined ? { idempotencyKey: flags['idempotency-key'] } : {}),
          },
          renderWrite('Created'),
        );
      },
    },
    {
      name: 'show',
      summary: 'One project: lots, analysis status and headline numbers, references, recent changes',
      usage: 'projects show <project> [--documents N] [--evidence N] [--json]',
      description: 'While an analysis run is less than 15 s old only its status is returned: show again after the time it says.',
      flags: withJsonUrl(
        { name: 'documents', value: 'N', description: 'How many attached references (0 to 50, default 10)' },
        { name: 'evidence', value: 'N', description: 'How many citations of the analysis (0 to 100, default 20)' },
      ),
      args: { min: 1, max: 1, name: PROJECT_ARG },
      run: ({ args: [p], flags, io }) =>
        callAndPrint(
          io,
          flags,
          'getProjectContext',
          { ...projectRef(p!), documentsLimit: limit(flags, 'documents', 10, 50), evidenceLimit: limit(flags, 'evidence', 20, 100) },
          renderContext,
        ),
    },
    {
      name: 'attach',
      summary: 'Attach lots (parcel ids from `siteline check`) or a bylaw section to a project',
      usage:
        'projects attach <project> <parcelId>... [--role build|context] [--radius M] [--preview] [--json]\n  siteline projects attach <project> --reference <sectionUuid> [--preview] [--json]',
      description: 'Lots must lie within --radius metres (default 150, at most 5000) of the project location; at most 50 per call.',
      flags: withJsonUrl(
        { name: 'role', value: 'ROLE', description: 'build (the lot being developed, default) or context (surrounding land)' },
        { name: 'radius', value: 'M', description: 'Half-width of the search square around the project, metres' },
        { name: 'reference', value: 'UUID', description: 'Attach a bylaw section (citations.<id>.sectionUuid of a snapshot) instead of lots' },
        { name: 'idempotency-key', value: 'KEY', description: 'Retry key: the same key and arguments return the first receipt' },
        PREVIEW_FLAG,
      ),
      args: { min: 1, max: 51, name: PROJECT_ARG },
      examples: ['siteline projects attach "Acorn St" 166-20', 'siteline projects attach "Acorn St" 166-21 --role context'],
      run: ({ args: [p, ...ids], flags, io }) => {
        const common = {
          ...projectRef(p!),
          preview: flags.preview === true,
          ...(flags['idempotency-key'] !== undefined ? { idempotencyKey: flags['idempotency-key'] } : {}),
        };
        if (flags.reference !== undefined) {
          if (ids.length || flags.role !== undefined || flags.radius !== undefined)
            throw new UsageError('--reference attaches a section: no parcel ids, --role or --radius with it');
          return callAndPrint(io, flags, 'saveToProject', { action: 'attach_reference', sectionUuid: flags.reference, ...common }, renderWrite('Attached'));
        }
        if (!ids.length) throw new UsageError('name at least one parcel id (lot.parcelExternalId in `siteline check --json`), or --reference');
        if (flags.role !== undefined && flags.role !== 'build' && flags.role !== 'context') throw new UsageError('--role is build or context');
        let radiusM: number | undefined;
        if (flags.radius !== undefined) {
          radiusM = Number(flags.radius);
          if (!Number.isInteger(radiusM) || radiusM < 1 || radiusM > 5000) throw new UsageError('--radius needs a whole number of metres from 1 to 5000');
        }
        return callAndPrint(
          io,
          flags,
          'saveToProject',
          {
            action: 'attach_parcels',
            parcelExternalIds: ids,
            ...(flags.role ? { role: flags.role } : {}),
            ...(radiusM !== undefined ? { radiusM } : {}),
            ...common,
          },
          renderWrite('Attached'),
        );
      },
    },
    {
      name: 'analyze',
      summary: 'Queue the feasibility analysis of the build lots (then `projects show` for the result)',
      usage: 'projects analyze <project> [--json]',
      flags: withJsonUrl(),
      args: { min: 1, max: 1, name: PROJECT_ARG },
      run: ({ args: [p], flags, io }) =>
        callAndPrint(io, flags, 'runFeasibilityAnalysis', projectRef(p!), (s) =>
          [
            `Analysis queued: run ${s.runId}`,
            `Receipt ${s.receiptId}`,
            `Check with \`siteline projects show ${shellWord(p!)}\` in ${s.recheckAfterSeconds ?? 15} s.`,
          ].join('\n'),
        ),
    },
    {
      name: 'update',
      summary: "Change a project's name, lifecycle status, external ref or typology (undo with `projects undo`)",
      usage:
        'projects update <project> [--name NAME] [--status STATUS] [--external-ref SYS:ID | --clear-external-ref] [--typology TYPE | --clear-typology] [--preview] [--json]',
      description: `Lifecycle statuses: ${LIFECYCLE}. Typologies: ${PROJECT_TYPOLOGIES.join(', ')}.`,
      flags: withJsonUrl(
        { name: 'name', value: 'NAME', description: 'New name' },
        { name: 'status', value: 'STATUS', description: 'New lifecycle status' },
        { name: 'external-ref', value: 'SYS:ID', description: 'New external ref' },
        { name: 'clear-external-ref', description: 'Remove the external ref' },
        { name: 'typology', value: 'TYPE', description: 'What is planned on the site (shown on the public map)' },
        { name: 'clear-typology', description: 'Remove the typology' },
        PREVIEW_FLAG,
      ),
      args: { min: 1, max: 1, name: PROJECT_ARG },
      examples: ['siteline projects update "Acorn St" --status due_diligence'],
      run: ({ args: [p], flags, io }) => {
        if (flags['external-ref'] !== undefined && flags['clear-external-ref'])
          throw new UsageError('--external-ref and --clear-external-ref exclude each other');
        const changes = {
          ...(flags.name !== undefined ? { name: flags.name } : {}),
          ...(flags.status !== undefined ? { lifecycleStatus: flags.status } : {}),
          ...(flags['external-ref'] !== undefined ? { externalRef: flags['external-ref'] } : {}),
          ...(flags['clear-external-ref'] ? { externalRef: null } : {}),
          ...(flags.typology !== undefined ? { typology: flags.typology } : {}),
          ...(flags['clear-typology'] ? { typology: '' } : {}),
        };
        if (flags.typology !== undefined && flags['clear-typology']) throw new UsageError('--typology and --clear-typology exclude each other');
        if (!Object.keys(changes).length)
          throw new UsageError('nothing to change: give --name, --status, --external-ref, --clear-external-ref, --typology or --clear-typology');
        return callAndPrint(io, flags, 'updateProject', { ...projectRef(p!), ...changes, preview: flags.preview === true }, renderWrite('Updated'));
      },
    },
    {
      name: 'undo',
      summary: 'Undo an earlier `projects update` by its receipt id',
      usage: 'projects undo <project> <receiptId> [--preview] [--json]',
      description: 'Refused (exit 1) when a field was changed again since, or the write was already undone.',
      flags: withJsonUrl(PREVIEW_FLAG),
      args: { min: 2, max: 2, name: 'the project and the receipt id of the update to undo' },
      run: ({ args: [p, receiptId], flags, io }) =>
        callAndPrint(io, flags, 'updateProject', { ...projectRef(p!), undoOperationId: receiptId, preview: flags.preview === true }, renderWrite('Undone')),
    },
  ],
};

/** A word as a POSIX shell reads it back: quoted when it holds anything but plain characters. */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
