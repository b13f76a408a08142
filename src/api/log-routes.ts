import type { FastifyInstance } from 'fastify';
import type { RequestLogEntry } from '../domain/model.js';
import { validationError } from '../errors.js';
import { type ApiDeps, caller, type Params } from './context.js';

/** How often a live stream checks that its token still stands (CONTRACT §10: it ends within 1 s). */
export const STREAM_AUTH_CHECK_MS = 400;

export function logRoutes(app: FastifyInstance, { store, requestLog }: ApiDeps): void {
  const tags = ['requests'];
  app.get<{ Params: Params<'projectId'>; Querystring: { limit?: string } }>(
    '/api/projects/:projectId/requests',
    {
      schema: {
        tags,
        summary: 'Mock requests of the project, newest first (limit default 50, max 500)',
        querystring: { type: 'object', properties: { limit: { type: 'string' } } },
      },
    },
    async (req) => {
      const raw = req.query.limit;
      let limit = 50;
      if (raw !== undefined) {
        limit = Number(raw);
        if (!Number.isInteger(limit) || limit < 1)
          throw validationError([{ path: '/limit', message: 'limit must be a positive integer' }]);
        limit = Math.min(limit, 500);
      }
      return requestLog.list(caller(req).id, req.params.projectId, limit);
    },
  );

  app.get<{ Params: Params<'projectId'> }>(
    '/api/projects/:projectId/requests/stream',
    { schema: { tags, summary: 'Server-Sent Events: one `data:` line of Entry JSON per mock request' } },
    async (req, reply) => {
      const me = caller(req);
      await store.projects.require(me.id, req.params.projectId);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write(': connected\n\n');
      const send = (e: RequestLogEntry) => {
        res.write(`data: ${JSON.stringify(e)}\n\n`);
      };
      const off = requestLog.subscribe(req.params.projectId, send);
      const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
      // a token revoked (logout, password change) or expired ends the stream: the stream was
      // authorised once, at its start, and must not outlive that authorisation
      const tokenHash = req.tokenHash;
      let checking = false;
      const auth = setInterval(() => {
        if (checking || tokenHash === null) return;
        checking = true;
        store.loginTokens
          .user(tokenHash)
          .then(
            (user) => {
              if (!user) res.end();
            },
            () => {
              /* the database did not answer: keep the stream, check again */
            },
          )
          .finally(() => {
            checking = false;
          });
      }, STREAM_AUTH_CHECK_MS);
      const close = () => {
        clearInterval(ping);
        clearInterval(auth);
        off();
      };
      req.raw.on('close', close);
      res.on('close', close);
      // a deleted project ends its stream
      const onChange = async (projectId: string) => {
        if (projectId !== req.params.projectId) return;
        if (!(await store.projects.get(me.id, projectId).catch(() => null))) {
          store.off('change', onChange);
          res.end();
        }
      };
      store.on('change', onChange);
      res.on('close', () => store.off('change', onChange));
    },
  );
}
