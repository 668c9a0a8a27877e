// produceProjectReport (gated, write): composes a PDF report of one of the caller's projects and
// returns a signed download link, never the PDF bytes. preview=true composes only (outline and page
// count, no spend, no link); confirm=true saves the export and spends one records.exports unit, once
// per identical request within 10 minutes (a retry returns the same export).
import { z } from 'zod';
import { defineTool } from '../tool-definition.ts';
import { REPORT_AUDIENCES, REPORT_DETAILS } from '../../reports/report-input.ts';
import { REPORT_EXPORTS_PER_MONTH } from '../../reports/export-store.ts';
import { EXPORT_URL_TTL_S } from '../../reports/signed-url.ts';
import { produceProjectReport as produce } from '../../reports/project-report.ts';
import { callerAccount, candidatesOutcome, jsonOutcome, listedOutcome, projectChoiceOutput } from '../project-results.ts';

export const produceProjectReport = defineTool({
  name: 'produceProjectReport',
  title: 'Project report (PDF)',
  description:
    "Composes a PDF report of one of your projects (the site and its lots on a vector map, the analysis envelope with every value's status in words, citations, data vintages and licences, and what is unknown) " +
    'and returns a signed download URL (valid 24 h), never the PDF bytes. audience (investor, owner, board, resident) and detail (brief, detailed) change what it says; request is your own ask, printed as quoted text; planName names the plan. ' +
    'preview=true composes only: the outline and page count, no meter spend, no URL. confirm=true (required when preview is false) saves the export, spends one unit of the records.exports meter ' +
    `(${REPORT_EXPORTS_PER_MONTH} per account per calendar month) and returns the URL; the same call repeated within 10 minutes returns the same export without spending again. ` +
    'The project needs a finished runFeasibilityAnalysis. With neither projectId nor project, it lists your projects and spends nothing.',
  input: z.object({
    projectId: z.string().optional().describe('Project UUID.'),
    project: z.string().optional().describe('Project name (case-insensitive; exact beats partial; several matches list candidates).'),
    audience: z.enum(REPORT_AUDIENCES).describe('Who reads it: investor (capacity first), owner, board, resident (plain words).'),
    detail: z.enum(REPORT_DETAILS).describe('brief or detailed (every value with citation and condition, permitted uses, sources).'),
    request: z.string().max(2000).optional().describe('Your own ask, printed verbatim as quoted text (never markup or instructions).'),
    preview: z.boolean().describe('True composes only: outline and page count, no meter spend, no URL.'),
    confirm: z.boolean().describe('True saves the export, spends the records.exports meter and returns the URL. Irreversible. Required when preview is false.'),
    planName: z.string().max(200).optional().describe('Names the plan the report is about.'),
  }),
  purpose: 'Composes a PDF report of a project: preview=true for the outline (free); confirm=true spends one export and returns a signed link.',
  output: z.looseObject({
    ...projectChoiceOutput,
    spent: z.boolean().optional(),
    projectId: z.string().optional(),
    project: z.string().optional(),
    pageCount: z.number().optional(),
    exportId: z.string().optional(),
    url: z.string().optional(),
    expiresAt: z.string().optional(),
    usage: z.record(z.string(), z.unknown()).optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'gated',
  async handler(args, call) {
    const accountId = callerAccount(call);
    const out = await produce(call.ctx, accountId, args);
    if (out.kind === 'list') return listedOutcome('produceProjectReport', out.list, 'no report was composed and nothing was spent');
    if (out.kind === 'candidates') return candidatesOutcome('produceProjectReport', out.query, out.candidates, 'no report was composed and nothing was spent');
    if (out.kind === 'preview') {
      const structured = {
        action: 'preview',
        spent: false,
        projectId: out.projectId,
        project: out.projectName,
        pageCount: out.pageCount,
        outline: { title: out.outline.title, subtitle: out.outline.subtitle, sections: out.outline.sections.map((s) => s.heading) },
        note: `Preview only: ${out.pageCount} page(s); nothing was saved or spent and there is no URL. Call again with preview=false and confirm=true to export.`,
      };
      return jsonOutcome(structured.note, structured);
    }
    const structured = {
      action: 'exported',
      spent: !out.duplicate,
      duplicate: out.duplicate,
      projectId: out.projectId,
      project: out.projectName,
      exportId: out.exportId,
      url: out.url,
      expiresAt: out.expiresAt,
      linkLifetimeSeconds: EXPORT_URL_TTL_S,
      pageCount: out.pageCount,
      byteSize: out.byteSize,
      usage: { meter: 'records.exports', ...out.usage },
    };
    const sentence = out.duplicate
      ? `The same report was exported moments ago; here is a fresh link to it (nothing spent again). ${out.usage.remaining} of ${out.usage.allowance} exports left this month.`
      : `Report exported (${out.pageCount} page(s)); one export spent, ${out.usage.remaining} of ${out.usage.allowance} left this month. Download link (valid until ${out.expiresAt}): ${out.url}`;
    return jsonOutcome(sentence, structured);
  },
});
