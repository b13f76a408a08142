/**
 * `POST /mcp` (and `GET`, `DELETE` of the transport) for coding agents (docs/agents.md): the MCP
 * server is loaded on first use, so a service no agent talks to never loads the SDK.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiDeps } from './context.js';

export function mcpRoutes(app: FastifyInstance, { version }: ApiDeps & { version: string }): void {
  let loaded: Promise<typeof import('../mcp/http.js')> | null = null;
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    loaded ??= import('../mcp/http.js');
    const { handleMcp } = await loaded;
    reply.hijack();
    await handleMcp(
      app,
      version,
      {
        raw: req.raw,
        body: req.body,
        authorization: req.headers.authorization ?? '',
        readOnly: req.apiKey?.scope === 'read',
      },
      reply.raw,
    );
  };
  const options = {
    config: { access: 'user' as const },
    schema: { tags: ['agents'], summary: 'Model Context Protocol (Streamable HTTP): the tools of docs/agents.md' },
  };
  app.post('/mcp', options, handler);
  app.get('/mcp', options, handler);
  app.delete('/mcp', options, handler);
}
