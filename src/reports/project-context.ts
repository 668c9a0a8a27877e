// getProjectContext: one project with its analysis envelope, compact agentStatus, document and
// evidence summaries, a deterministic memory digest, external_ref, and the account's report export
// meter (used, allowance, remaining this month). Within the re-check interval
// after an enqueue, while the run is not finished, it answers the status only (no heavy work).
import type { AppContext } from '../context.ts';
import { badInput } from '../core/errors.ts';
import { resolveProject, summarise, type ProjectList, type ProjectRow, type TargetArgs } from '../projects/project-store.ts';
import { lotSummary, type LotRole, type LotSnapshot, type ProjectLot } from '../projects/project-lots.ts';
import { receiptOf, type Receipt, type ReceiptRow } from '../projects/receipts.ts';
import type { PlaceRow } from '../analysis/feasibility-analysis.ts';
import { agentStatusOf, statusOfRun, type AgentStatus } from '../analysis/agent-status.ts';
import { RECHECK_INTERVAL_S } from '../analysis/run-feasibility-analysis.ts';
import type { RunRow } from '../analysis/run-queue.ts';
import { readAnalysisResult, type FeasibilityAnalysis } from '../analysis/analysis-result.ts';
import { exportUsage } from './export-store.ts';
import { valueWords } from '../core/value-words.ts';
import { isValueStatus } from '../core/statuses.ts';

/** Bounds of documentsLimit and evidenceLimit (both required). */
export const MAX_DOCUMENTS_LIMIT = 50;
export const MAX_EVIDENCE_LIMIT = 100;
/** Receipts the memory digest recounts. */
const DIGEST_RECEIPTS = 5;

export interface ContextArgs extends TargetArgs {
  documentsLimit: number;
  evidenceLimit: number;
}

export type ContextOutcome =
  | { kind: 'list'; list: ProjectList }
  | { kind: 'candidates'; query: string; candidates: { projectId: string; name: string; lifecycleStatus: string }[] }
  | { kind: 'recheck'; result: Record<string, unknown> }
  | { kind: 'context'; result: Record<string, unknown> };

export async function getProjectContext(ctx: AppContext, accountId: string, args: ContextArgs): Promise<ContextOutcome> {
  for (const [field, v, max] of [
    ['documentsLimit', args.documentsLimit, MAX_DOCUMENTS_LIMIT],
    ['evidenceLimit', args.evidenceLimit, MAX_EVIDENCE_LIMIT],
  ] as const)
    if (!Number.isInteger(v) || v < 0 || v > max) throw badInput(`${field} must be an integer from 0 to ${max}.`, { field });
  const target = await resolveProject(ctx, accountId, args);
  if (target.kind === 'list') return { kind: 'list', list: target.list };
  if (target.kind === 'candidates') return { kind: 'candidates', query: target.query, candidates: target.candidates };
  const project = target.project;
  // Everything else in one round trip: the latest run, the latest succeeded run (with its stored
  // result, which the analysis block and the memory digest are made from), the lots, the receipts,
  // the references and the place rows of the lots (for inputsChanged).
  const loaded = await loadContext(ctx, accountId, project.project_id, args.documentsLimit + 1);
  const latest = loaded.latest;
  if (latest && (latest.status === 'queued' || latest.status === 'running')) {
    const elapsed = (ctx.clock.now().getTime() - new Date(latest.enqueued_at).getTime()) / 1000;
    if (elapsed < RECHECK_INTERVAL_S) {
      const wait = Math.max(1, Math.ceil(RECHECK_INTERVAL_S - elapsed));
      return {
        kind: 'recheck',
        result: {
          project: { projectId: project.project_id, name: project.name },
          agentStatus: statusOfRun(latest),
          recheck: { retryAfterSeconds: wait, intervalSeconds: RECHECK_INTERVAL_S },
          note: `The analysis run is ${latest.status}. Check again in ${wait} s (at most once every ${RECHECK_INTERVAL_S} s while a run is queued or running); nothing else was computed.`,
        },
      };
    }
  }
  const { lots, succeeded, receipts, refs } = loaded;
  const agentStatus = await agentStatusOf(ctx, project.project_id, latest, lots, loaded.places);
  const analysis = succeeded?.result ? readAnalysisResult(succeeded.result) : null;
  const documents = refs.slice(0, args.documentsLimit).map((r) => ({
    kind: 'reference',
    sectionUuid: r.section.sectionUuid,
    title: r.section.title,
    bylaw: r.section.bylaw,
    section: r.section.section,
    sourceUrl: r.section.sourceUrl,
    ...(r.section.text ? { excerpt: r.section.text.slice(0, 300) } : {}),
    attachedAt: new Date(r.attached_at).toISOString(),
  }));
  const allEvidence = (analysis?.evidence ?? []) as { sectionUuid?: string }[];
  const evidence = allEvidence.slice(0, args.evidenceLimit);
  const recent = receipts.map(receiptOf);
  // The account's export meter (records.exports): what produceProjectReport with confirm=true may still spend this month.
  const exports = { meter: 'records.exports', ...(await exportUsage(ctx, accountId)) };
  return {
    kind: 'context',
    result: {
      project: summarise(project),
      external_ref: project.external_ref,
      lots: lots.map(lotSummary),
      agentStatus,
      analysis: analysis
        ? {
            runId: succeeded!.run_id,
            finishedAt: new Date(succeeded!.finished_at!).toISOString(),
            inputsDigest: succeeded!.inputs_digest,
            combinedLotArea: analysis.combinedLotArea,
            governingDistricts: analysis.governingDistricts,
            splitSite: analysis.splitSite,
            place: analysis.place,
            standards: analysis.standards,
            derived: analysis.derived,
            contextLots: analysis.contextLots,
            notes: analysis.notes,
          }
        : null,
      documents: { items: documents, limit: args.documentsLimit, hasMore: refs.length > args.documentsLimit },
      evidence: { items: evidence, limit: args.evidenceLimit, total: allEvidence.length, hasMore: allEvidence.length > args.evidenceLimit },
      memoryDigest: memoryDigest(project, lots, agentStatus, analysis, recent),
      recentReceipts: recent,
      exports,
    },
  };
}

type RunHead = Pick<RunRow, 'run_id' | 'status' | 'attempts' | 'error' | 'inputs_digest' | 'enqueued_at' | 'finished_at'>;
type RefRow = {
  section: { sectionUuid: string; bylaw: string; section: string; title: string; sourceUrl: string; date: string; text?: string };
  attached_at: string;
};

interface Loaded {
  latest: RunHead | null;
  succeeded: (RunHead & { result: string | null }) | null;
  lots: ProjectLot[];
  receipts: ReceiptRow[];
  refs: RefRow[];
  places: PlaceRow[];
}

/** One call of project_context_load (migration 090: a function, so its plan is prepared once per session). */
async function loadContext(ctx: AppContext, accountId: string, projectId: string, refsLimit: number): Promise<Loaded> {
  type Raw = {
    latest: RunHead | null;
    succeeded: Loaded['succeeded'];
    lots: { role: LotRole; attached_at: string; snapshot: LotSnapshot }[];
    receipts: ReceiptRow[];
    refs: RefRow[];
    places: PlaceRow[];
  };
  const rows = await ctx.db.query<{ loaded: Raw }>('SELECT project_context_load($1, $2, $3, $4) AS loaded', [
    projectId,
    accountId,
    Math.max(DIGEST_RECEIPTS, 1),
    refsLimit,
  ]);
  const r = rows[0]!.loaded;
  return {
    latest: r.latest,
    succeeded: r.succeeded,
    lots: r.lots.map((l) => ({ role: l.role, attachedAt: new Date(l.attached_at).toISOString(), lot: l.snapshot })),
    receipts: r.receipts,
    refs: r.refs,
    places: r.places,
  };
}

// One formatter for every number of the digest (toLocaleString with options builds a new one per call).
const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const fmt = (n: number) => NUMBER.format(n);

/**
 * A value worded as on every surface (core/value-words.ts: "No limit, per S1 — indicative, unverified",
 * "Not calculated — …"), its status code after it for the model; a measured value (the lot's area) with its basis.
 */
function valueText(v: { value: number | null; status?: string; basis?: string; unit?: string; statedNoLimit?: string; inputs?: string[] } | undefined): string {
  if (!v) return 'not analysed';
  if (v.status && isValueStatus(v.status)) return `${valueWords({ ...v, status: v.status }).line} (${v.status})`;
  const why = v.status ?? (v.basis === 'parcel_geometry' ? 'from the parcel geometry' : v.basis);
  if (v.value === null) return `unknown${why ? ` (${why})` : ''}`;
  return `${fmt(v.value)}${v.unit ? ` ${v.unit}` : ''}${why ? ` (${why})` : ''}`;
}

/** A short text a model can read: same project state -> same text (no clock, fixed order). */
export function memoryDigest(project: ProjectRow, lots: ProjectLot[], status: AgentStatus, analysis: FeasibilityAnalysis | null, receipts: Receipt[]): string {
  const lines: string[] = [];
  lines.push(
    `Project "${project.name}" (${project.lifecycle_status})${project.address ? ` at ${project.address}` : ''}${project.external_ref ? `, external ref ${project.external_ref}` : ''}${project.typology ? `, typology ${project.typology}` : ''}.`,
  );
  const build = lots.filter((l) => l.role === 'build');
  const context = lots.filter((l) => l.role === 'context');
  const lotText = (l: ProjectLot) =>
    `${l.lot.parcelExternalId} (${fmt(l.lot.areaSqft)} sqft, ${
      l.lot.districts
        .filter((d) => d.layer === 'base')
        .map((d) => d.code)
        .join('/') || 'no district'
    })`;
  lines.push(build.length ? `Build lots: ${build.map(lotText).join('; ')}.` : 'No build lot attached.');
  if (context.length) lines.push(`Context lots: ${context.map(lotText).join('; ')}.`);
  for (const l of build) for (const w of l.lot.warnings ?? []) lines.push(`Lot ${l.lot.parcelExternalId}: ${w}`);
  lines.push(`Analysis: ${status.status}${status.inputsChanged ? ' (inputs changed since; run it again)' : ''}${status.error ? ` — ${status.error}` : ''}.`);
  if (analysis?.derived) {
    const d = analysis.derived;
    lines.push(
      `Headline: districts ${(analysis.governingDistricts ?? []).map((g: { code: string }) => g.code).join(', ') || 'none'}; lot ${valueText(analysis.combinedLotArea)}; ` +
        `max floor area ${valueText(d.maxFloorAreaSqft)}; max units ${valueText(d.maxDwellingUnits)}; footprint ${valueText(d.buildableFootprintSqft)}; ` +
        `storeys ${valueText(d.maxStoreys)}; height ${valueText(d.maxHeightFt)}; GFA envelope ${valueText(d.gfaEnvelopeSqft)}.`,
    );
  }
  if (receipts.length)
    lines.push(
      `Last changes: ${receipts.map((r) => `${r.at.slice(0, 10)} ${r.operation} ${r.action}${r.changes.length ? ` (${r.changes.map((c) => c.field).join(', ')})` : ''}`).join('; ')}.`,
    );
  return lines.join('\n');
}
