/**
 * `/mcp` on the service: the Streamable HTTP transport of MCP, stateless (a fresh server per request,
 * JSON answers), behind the same guard as the API. The tools call the API in-process with the
 * request's own Authorization, so a token, an API key and its scope mean exactly what they mean to
 * the REST API; a `read` key is offered the read tools only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type Injector, injectCaller } from './caller.js';
import { createMcpServer } from './server.js';

export interface McpRequest {
  raw: IncomingMessage;
  body: unknown;
  authorization: string;
  readOnly: boolean;
}

/** Answers one MCP HTTP request on `res`. */
export async function handleMcp(app: Injector, version: string, req: McpRequest, res: ServerResponse): Promise<void> {
  const socket = req.raw.socket;
  const host = socket.localAddress?.includes(':') ? `[${socket.localAddress}]` : (socket.localAddress ?? '127.0.0.1');
  const caller = injectCaller(app, req.authorization, `http://${host}:${socket.localPort}`);
  const server = createMcpServer(caller, { readOnly: req.readOnly, version });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req.raw, res, req.body);
}
