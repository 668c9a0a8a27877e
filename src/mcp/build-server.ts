// Builds the SDK server that answers one exchange: the catalogue from the registry (converted to
// JSON Schema once per registry, not per request) and one tools/call dispatcher that maps outcomes
// and errors once for every tool (conventions §5).
import { z } from 'zod';
import { ProtocolError, ProtocolErrorCode, Server, inputRequired, type AuthInfo } from '@modelcontextprotocol/server';
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import type { McpCaller, McpToolDefinition, ToolCallContext, ToolOutcome } from './tool-definition.ts';
import { serverIdentity } from './server-identity.ts';

/** What the HTTP layer hands to the SDK (as AuthInfo.extra) for every exchange. */
export interface ExchangeInfo {
  caller: McpCaller | null;
  requestId: string;
  clientIp: string;
}

export interface WireTool {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  annotations: McpToolDefinition['annotations'] & { title: string };
  _meta?: Record<string, unknown>;
}

const catalogueCache = new WeakMap<readonly McpToolDefinition[], WireTool[]>();

/** The tools/list entries for a registry, computed once. */
export function wireCatalogue(tools: readonly McpToolDefinition[]): WireTool[] {
  let wire = catalogueCache.get(tools);
  if (!wire) {
    wire = tools.map((t) => {
      const { $schema: _drop, ...inputSchema } = z.toJSONSchema(t.input, { io: 'input' }) as WireTool['inputSchema'];
      return {
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema,
        annotations: { title: t.title, ...t.annotations },
        // Tells a client up front which tools start sign-in (the 401 is the authority).
        _meta: { 'siteline/access': t.access },
      };
    });
    catalogueCache.set(tools, wire);
  }
  return wire;
}

export const SERVER_INSTRUCTIONS =
  'Sourced site intelligence for US and Canadian street addresses. Call getServiceMcpGuide first. Public tools need no token; ' +
  'getFeasibilitySnapshot needs sign-in (calling it starts OAuth). Report every value with its status: not_extracted is unknown, not "no limit".';

/** The catalogue is the same for every caller, so list results may be cached publicly. */
export const TOOLS_LIST_TTL_MS = 300_000;

export function buildMcpServer(ctx: AppContext, tools: readonly McpToolDefinition[], era: 'modern' | 'legacy'): Server {
  const id = serverIdentity();
  const server = new Server(
    { name: id.name, version: id.version, title: id.title },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: SERVER_INSTRUCTIONS,
      cacheHints: {
        'tools/list': { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: 'public' },
        'server/discover': { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: 'public' },
      },
    },
  );
  const catalogue = wireCatalogue(tools);
  server.setRequestHandler('tools/list', () => ({ tools: catalogue }));
  server.setRequestHandler('tools/call', async (request, extra) => {
    const { name, arguments: args } = request.params;
    const tool = tools.find((t) => t.name === name);
    if (!tool) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool "${name}". Call tools/list for the catalogue.`);
    }
    const info = exchangeInfoOf(extra.http?.authInfo);
    const call: ToolCallContext = {
      ctx,
      caller: info.caller,
      requestId: info.requestId,
      clientIp: info.clientIp,
      era,
      ...(extra.mcpReq.inputResponses ? { inputResponses: extra.mcpReq.inputResponses } : {}),
    };
    const outcome = await runTool(tool, args ?? {}, call);
    if (outcome.formRequest) {
      const { key, message, requestedSchema } = outcome.formRequest;
      if (era === 'modern') {
        return inputRequired({ inputRequests: { [key]: inputRequired.elicit({ mode: 'form', message, requestedSchema: requestedSchema as Parameters<typeof inputRequired.elicit>[0]['requestedSchema'] }) } });
      }
      return toCallToolResult(legacyFormAnswer(tool.name));
    }
    return toCallToolResult(outcome);
  });
  return server;
}

function exchangeInfoOf(auth: AuthInfo | undefined): ExchangeInfo {
  const extra = auth?.extra as Partial<ExchangeInfo> | undefined;
  return { caller: extra?.caller ?? null, requestId: extra?.requestId ?? '', clientIp: extra?.clientIp ?? '' };
}

/** Validates, runs and maps one call. Unexpected failures become -32603 with no detail. */
export async function runTool(tool: McpToolDefinition, args: unknown, call: ToolCallContext): Promise<ToolOutcome> {
  if (tool.access === 'gated' && !call.caller?.scopes.includes('mcp')) {
    // The HTTP gate answers 401/403 before this point; this is the second lock on the door.
    return { text: `${tool.name} needs a signed-in token with scope mcp. Sign in (call it without a token to start OAuth) and retry.`, isError: true };
  }
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) {
    return {
      text: `Invalid arguments for ${tool.name}: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, ' ')}. Fix them and call again.`,
      isError: true,
    };
  }
  const started = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  try {
    const outcome = await tool.handler(parsed.data, call);
    call.ctx.metrics?.observeTool(tool.name, outcome.isError ? 'tool_error' : 'ok', seconds());
    return outcome;
  } catch (err) {
    if (err instanceof SitelineError && err.code !== 'internal') {
      call.ctx.metrics?.observeTool(tool.name, 'tool_error', seconds());
      return { text: err.message, isError: true, structured: { error: { code: err.code, ...(err.details ?? {}) } } };
    }
    call.ctx.metrics?.observeTool(tool.name, 'failure', seconds());
    call.ctx.logger.error({ requestId: call.requestId, tool: tool.name, err }, 'mcp tool failed');
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error');
  }
}

/**
 * The 2025 leg is stateless, so it cannot carry the server-to-client elicitation request a form
 * needs. Its answer is an isError result telling the model to reconnect on 2026-07-28 (where the
 * form travels as input_required); nothing is persisted before the human has answered.
 */
export function legacyFormAnswer(toolName: string): ToolOutcome {
  return {
    text:
      `${toolName} needs a form answered by the user, which this 2025-era connection cannot carry (it is stateless). ` +
      'Reconnect with MCP protocol 2026-07-28 (server/discover, per-request _meta) and declare the elicitation capability, then call it again. Nothing was saved.',
    isError: true,
    structured: { error: { code: 'elicitation_unavailable', requiredProtocolVersion: '2026-07-28' } },
  };
}

function toCallToolResult(outcome: ToolOutcome) {
  return {
    content: [{ type: 'text' as const, text: outcome.text }],
    ...(outcome.structured ? { structuredContent: outcome.structured } : {}),
    ...(outcome.isError ? { isError: true } : {}),
    ...(outcome.meta ? { _meta: outcome.meta } : {}),
  };
}
