/**
 * The MCP server (docs/agents.md) on the official SDK's low-level Server: the tools of tools.ts with
 * their JSON Schema inputs, checked with the API's validator before they run; results structured
 * with a short text rendering; failures as tool errors carrying the API's code and message. One
 * server per transport connection: over HTTP a fresh one per request (stateless), over stdio one.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { compileValidator, type ErrorDetail } from '../domain/validator.js';
import type { ApiCaller } from './caller.js';
import { ToolError } from './tool-error.js';
import { TOOLS, type Tool } from './tools.js';

/** The input schema as plain JSON (TypeBox's symbol keys dropped). */
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as { type: 'object'; [k: string]: unknown };

const checks = new Map<string, (v: unknown) => ErrorDetail[] | null>();
const checkOf = (tool: Tool) => {
  let c = checks.get(tool.name);
  if (!c) {
    c = compileValidator(tool.input);
    checks.set(tool.name, c);
  }
  return c;
};

/** A short text for the client's model to read beside the structured result. */
function text(result: Record<string, unknown>): string {
  if (Array.isArray(result.sentences)) return (result.sentences as string[]).join('\n');
  const json = JSON.stringify(result, null, 1);
  return json.length > 4000 ? `${json.slice(0, 4000)}…` : json;
}

const failure = (code: string, message: string, details?: unknown) => ({
  isError: true,
  content: [{ type: 'text' as const, text: `${code}: ${message}` }],
  structuredContent: { error: { code, message, ...(details === undefined ? {} : { details }) } },
});

export interface McpOptions {
  /** offer only the read tools (a `read` API key) */
  readOnly: boolean;
  version: string;
}

export function createMcpServer(api: ApiCaller, opts: McpOptions): Server {
  const tools = TOOLS.filter((t) => t.read || !opts.readOnly);
  const server = new Server({ name: 'mockyard', version: opts.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: plain(t.input),
      annotations: { readOnlyHint: t.read },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const tool = tools.find((t) => t.name === req.params.name);
    if (!tool)
      return failure(
        'not_found',
        opts.readOnly && TOOLS.some((t) => t.name === req.params.name)
          ? `${req.params.name} writes; this key may only read`
          : `No tool named ${req.params.name}`,
      );
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    const problems = checkOf(tool)(args);
    if (problems) return failure('validation_failed', 'The arguments do not fit the tool’s input schema', problems);
    try {
      const result = await tool.run(args, api);
      return { content: [{ type: 'text' as const, text: text(result) }], structuredContent: result };
    } catch (e) {
      if (e instanceof ToolError) return failure(e.code, e.message, e.details);
      return failure('internal', 'The tool failed');
    }
  });
  return server;
}
