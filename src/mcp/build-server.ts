// Builds the SDK server that answers one exchange: the catalogue from the registry (converted to
// JSON Schema once per registry, not per request) and one tools/call dispatcher that maps outcomes
// and errors once for every tool (conventions §5).
import { z } from 'zod';
import { ProtocolError, ProtocolErrorCode, Server, inputRequired, type AuthInfo } from '@modelcontextprotocol/server';
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import { mcpRefusalText } from './next-step-words.ts';
import { pointSpellingProblem } from '../core/point-spelling.ts';
import type { McpCaller, McpToolDefinition, ToolCallContext, ToolOutcome } from './tool-definition.ts';
import { serverIdentity } from './server-identity.ts';
import { serverInstructions } from './service-guide.ts';
import { inputSchemaOf, outputSchemaWithRefusal } from './wire-schema.ts';

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
  outputSchema: { type: 'object'; [key: string]: unknown };
  annotations: McpToolDefinition['annotations'] & { title: string };
  _meta?: Record<string, unknown>;
}

const catalogueCache = new WeakMap<readonly McpToolDefinition[], WireTool[]>();

/** The tools/list entries for a registry, computed once. */
export function wireCatalogue(tools: readonly McpToolDefinition[]): WireTool[] {
  let wire = catalogueCache.get(tools);
  if (!wire) {
    wire = tools.map((t) => {
      return {
        name: t.name,
        title: t.title,
        description: t.description,
        // Portable spellings, and the refusal branch in every outputSchema (src/mcp/wire-schema.ts).
        inputSchema: inputSchemaOf(t.input),
        outputSchema: outputSchemaWithRefusal(t.output),
        annotations: { title: t.title, ...t.annotations },
        // Tells a client up front which tools start sign-in (the 401 is the authority).
        _meta: { 'siteline/access': t.access },
      };
    });
    catalogueCache.set(tools, wire);
  }
  return wire;
}

/** The catalogue is the same for every caller, so list results may be cached publicly. */
const TOOLS_LIST_TTL_MS = 300_000;

export function buildMcpServer(ctx: AppContext, tools: readonly McpToolDefinition[], era: 'modern' | 'legacy'): Server {
  const id = serverIdentity();
  const server = new Server(
    { name: id.name, version: id.version, title: id.title },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: serverInstructions(tools),
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
      // The 2025 leg is stateless and cannot carry a form; on 2026-07-28 the request's envelope says.
      canElicit: era === 'modern' && server.getClientCapabilities()?.elicitation !== undefined,
      tools,
      ...(extra.mcpReq.inputResponses ? { inputResponses: extra.mcpReq.inputResponses } : {}),
    };
    const outcome = await runTool(tool, args ?? {}, call);
    if (outcome.formRequest) {
      const { key, message, requestedSchema } = outcome.formRequest;
      if (call.canElicit) {
        return inputRequired({
          inputRequests: {
            [key]: inputRequired.elicit({
              mode: 'form',
              message,
              requestedSchema: requestedSchema as Parameters<typeof inputRequired.elicit>[0]['requestedSchema'],
            }),
          },
        });
      }
      return toCallToolResult(noFormAnswer(tool.name, era));
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
async function runTool(tool: McpToolDefinition, args: unknown, call: ToolCallContext): Promise<ToolOutcome> {
  if (tool.access === 'gated' && !call.caller?.scopes.includes('mcp')) {
    // The HTTP gate answers 401/403 before this point; this is the second lock on the door.
    const text = `${tool.name} needs a signed-in token with scope mcp. Sign in (call it without a token to start OAuth) and retry.`;
    return { text, isError: true, structured: { error: { code: 'unauthorized', message: text } } };
  }
  const shape = tool.input.shape as Record<string, unknown>;
  if ('lat' in shape && args && typeof args === 'object') {
    // One spelling of a point (lat, lng): another is refused by name, never silently dropped.
    const wrong = pointSpellingProblem(Object.keys(args));
    if (wrong) {
      const text = `Invalid arguments for ${tool.name}: ${wrong} Fix them and call again.`;
      return { text, isError: true, structured: { error: { code: 'invalid_arguments', message: text } } };
    }
  }
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) {
    const text = `Invalid arguments for ${tool.name}: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, ' ')}. Fix them and call again.`;
    return { text, isError: true, structured: { error: { code: 'invalid_arguments', message: text } } };
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
      // A project refusal's next step is worded here for agents (tool names); see src/mcp/next-step-words.ts.
      return { text: mcpRefusalText(err), isError: true, structured: { error: { code: err.code, ...(err.details ?? {}) } } };
    }
    call.ctx.metrics?.observeTool(tool.name, 'failure', seconds());
    call.ctx.logger.error({ requestId: call.requestId, tool: tool.name, err }, 'mcp tool failed');
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error');
  }
}

/**
 * A form the client cannot show: the 2025 leg is stateless (it cannot carry the server-to-client
 * request), and a 2026-07-28 client may not declare elicitation. Either way the answer is a normal
 * isError result saying why and how to finish; nothing is persisted before the human has answered.
 * Tools with a web page for the same step say so themselves (submitServiceFeedback, setProjectMapListing).
 */
function noFormAnswer(toolName: string, era: 'modern' | 'legacy'): ToolOutcome {
  const why =
    era === 'legacy' ? 'this 2025-era connection cannot carry (it is stateless)' : 'this client cannot show (it did not declare the elicitation capability)';
  return {
    text:
      `${toolName} needs a form answered by the user, which ${why}. ` +
      'Use a client that declares the elicitation capability on MCP protocol 2026-07-28, then call it again. Nothing was saved.',
    isError: true,
    structured: { error: { code: 'elicitation_unavailable', requiredProtocolVersion: '2026-07-28', requiredCapability: 'elicitation' } },
  };
}

/**
 * Content for every client: a one-line summary, then the whole structured answer as JSON (MCP
 * 2025-06-18: a tool returning structured content SHOULD also return it serialised in a text
 * block), so a client that hands only text to its model loses nothing.
 */
function toCallToolResult(outcome: ToolOutcome) {
  const summary = outcome.text.replace(/\s*\n\s*/g, ' ').trim();
  const content = [{ type: 'text' as const, text: summary }];
  if (outcome.structured) content.push({ type: 'text' as const, text: outcome.json ?? JSON.stringify(outcome.structured) });
  return {
    content,
    ...(outcome.structured ? { structuredContent: outcome.structured } : {}),
    ...(outcome.isError ? { isError: true } : {}),
    ...(outcome.meta ? { _meta: outcome.meta } : {}),
  };
}
