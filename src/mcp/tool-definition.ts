// The shape every MCP tool is declared in (conventions §2): data plus one handler. The registry
// collects them; the server build turns them into the wire catalogue once.
import type { z } from 'zod';
import type { AppContext } from '../context.ts';

/** The four MCP annotation hints; every tool states all four. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Who reached the endpoint, as the bearer check established it. */
export interface McpCaller {
  subject: string;
  accountId: string | null;
  scopes: string[];
  tokenType: string;
  clientId?: string;
}

/** What a handler gets besides its validated arguments. */
export interface ToolCallContext {
  ctx: AppContext;
  /** null for an anonymous call (public tools only). */
  caller: McpCaller | null;
  requestId: string;
  /** The caller's IP, for per-IP limits. */
  clientIp: string;
  /** The protocol leg the request came in on. */
  era: 'modern' | 'legacy';
  /** Whether the client declared the elicitation capability (forms), on either leg. */
  canElicit: boolean;
  /** The registry this server was built with (the guide lists it). */
  tools: readonly McpToolDefinition[];
  /** On a 2026-07-28 retry after a form: the client's answers keyed as the tool asked (untrusted input). */
  inputResponses?: Record<string, unknown>;
}

/** A form the tool needs the human to fill before it can finish (2026-07-28 form elicitation). */
export interface FormRequest {
  key: string;
  message: string;
  requestedSchema: { type: 'object'; properties: Record<string, Record<string, unknown>>; required?: string[] };
}

/**
 * A tool's own answer: structured data plus a one-line summary. The dispatcher sends the summary as
 * the first text block and the structured answer, serialised, as the second (docs/mcp.md, "Results"),
 * so a client that passes only text to its model still gives it the whole answer.
 */
export interface ToolOutcome {
  text: string;
  structured?: Record<string, unknown>;
  /** JSON.stringify(structured) when the tool already holds it (the snapshot cache does). */
  json?: string;
  /** True for a failure on the tool's own terms: the text says what to do next. */
  isError?: boolean;
  /** Result _meta (attribution, links): kept out of the payload so it stays identical across callers. */
  meta?: Record<string, unknown>;
  /** Ask the human first: answered as input_required on 2026-07-28; on the 2025 leg see build-server.ts. */
  formRequest?: FormRequest;
}

export interface McpToolDefinition<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** Written for a model: what the tool does, when to call it, what comes back. */
  description: string;
  input: S;
  /**
   * What structuredContent holds on a non-error result, as a zod object (sent as outputSchema;
   * the official client validates every result against it). Error results carry `{error: {code}}`.
   */
  output: z.ZodObject;
  /** One line for the guide and the server instructions: what the tool is for (built from the registry). */
  purpose: string;
  annotations: ToolAnnotations;
  /** public: open to anyone; gated: needs a claimed token with scope `mcp`. */
  access: 'public' | 'gated';
  handler(input: z.output<S>, call: ToolCallContext): Promise<ToolOutcome>;
}

/** Declares a tool; the identity function keeps the input type tied to the handler. */
export function defineTool<S extends z.ZodObject>(def: McpToolDefinition<S>): McpToolDefinition<S> {
  return def;
}

export function toolResult(structured: Record<string, unknown>, text: string): ToolOutcome {
  return { text, structured };
}

/** A failure on the tool's own terms: a sentence a model can act on. */
export function toolError(sentence: string, structured?: Record<string, unknown>, code = 'tool_error'): ToolOutcome {
  return { text: sentence, isError: true, structured: structured ?? { error: { code, message: sentence } } };
}

/** The sentence a tool with a web page gives when the client cannot show its form. */
export function noFormReason(era: 'modern' | 'legacy'): string {
  return era === 'legacy'
    ? 'this 2025-era connection cannot show them a form (it is stateless)'
    : 'this client cannot show them a form (it did not declare the elicitation capability)';
}
