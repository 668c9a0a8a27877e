// The step that would let a refused call through, as data (issue 23): a domain refusal says what is
// wrong in words that name no surface, and carries `next` in its details; each surface words the step
// for its reader — the MCP adapter names the tool and its arguments (src/mcp/next-step-words.ts), the
// web names the button (src/web/project-editor.ts), the CLI reads the MCP text.

export type NextStep =
  /** Attach a build lot to the project (then, when `then` is given, do that again). */
  | { action: 'attach_build_lot'; then?: 'list_on_map' | 'run_analysis' }
  /** Run the feasibility analysis and wait until it is current (then, when `then` is given, do that again). */
  | { action: 'run_analysis'; then?: 'produce_report' }
  /** Find the lot's id where lots are looked up (the snapshot of its address, or the map). */
  | { action: 'look_up_lot' }
  /** Search a wider square: at least radiusM metres. */
  | { action: 'widen_radius'; radiusM: number }
  /** Find a bylaw section's id where citations are shown. */
  | { action: 'look_up_citation' }
  /** Clear the external reference on the other project first, or use another one. */
  | { action: 'clear_external_ref'; projectId: string }
  /** Undo names a receipt of a project-field update (name, lifecycle status, external reference). */
  | { action: 'pick_update_receipt' }
  /** Nothing undoes this kind of write; `receiptAction` is what the receipt recorded (its operation is in the error's `receiptOperation`). */
  | { action: 'not_reversible'; receiptAction: string }
  /** Choose another lot (or look at the lots again: the project changed). */
  | { action: 'choose_lot' }
  | { action: 'reload' }
  /** Remove the project from the public map first. */
  | { action: 'unlist' };

export type NextAction = NextStep['action'];

/** The `next` of an error's details, when it carries one. */
export function nextStepOf(details: Record<string, unknown> | undefined): NextStep | null {
  const n = details?.['next'];
  return n && typeof n === 'object' && typeof (n as { action?: unknown }).action === 'string' ? (n as NextStep) : null;
}
