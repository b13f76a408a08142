import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AppError, validationError } from '../domain/errors.js';
import type { RequestLogEntry } from '../domain/model.js';
import { RequestLogEntryRecord } from '../domain/records.js';
import { compileFilter, filterEntries, type RequestFilter } from '../runtime/verify.js';
import { type ApiDeps, caller, type Params } from './context.js';

/** A verification filter (docs/testing.md): every field optional, all given ones must match. */
const RequestFilterSchema = Type.Object(
  {
    method: Type.Optional(Type.String({ maxLength: 16 })),
    path: Type.Optional(Type.String({ maxLength: 4096, description: 'the path after the project prefix, exactly' })),
    pathPattern: Type.Optional(Type.String({ maxLength: 512, description: 'RE2, anchored' })),
    endpointId: Type.Optional(Type.String({ maxLength: 100 })),
    ruleId: Type.Optional(Type.String({ maxLength: 100 })),
    session: Type.Optional(Type.String({ maxLength: 200 })),
    since: Type.Optional(Type.String({ maxLength: 64, description: 'ISO 8601 time, inclusive' })),
    headers: Type.Optional(
      Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 8192 }), { maxProperties: 50 }),
    ),
    statusCode: Type.Optional(Type.Integer({ minimum: 0, maximum: 999 })),
    violations: Type.Optional(
      Type.Boolean({ description: 'true: only requests with contract violations; false: only those without' }),
    ),
  },
  { additionalProperties: false },
);

/** How often a live stream checks that its token still stands (docs/limits.md: it ends within 1 s). */
export const STREAM_AUTH_CHECK_MS = 400;
/** Request-log streams one user may have open at once (per process). */
export const STREAMS_PER_USER = 10;
/** Bytes queued for a stream's client past which the stream is closed (a client that does not read). */
export const STREAM_QUEUE_BYTES = 1024 * 1024;
/** Open streams per user id, in this process. */
const openStreams = new Map<string, number>();

export function logRoutes(app: FastifyInstance, { store, requestLog }: ApiDeps): void {
  const tags = ['requests'];
  app.get<{ Params: Params<'projectId'>; Querystring: { limit?: string } }>(
    '/api/projects/:projectId/requests',
    {
      schema: {
        tags,
        summary: 'Mock requests of the project, newest first (limit default 50, max 500)',
        querystring: { type: 'object', properties: { limit: { type: 'string' } } },
        response: { 200: Type.Array(RequestLogEntryRecord) },
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

  // verification: read through the log (a request answered before the call returns is counted)
  type Verify = { Params: Params<'projectId'>; Body: RequestFilter | undefined };
  const matching = async (
    req: { params: Params<'projectId'>; body: RequestFilter | undefined } & Parameters<typeof caller>[0],
  ) => {
    const test = compileFilter(req.body ?? {});
    return filterEntries(await requestLog.all(caller(req).id, req.params.projectId), test);
  };
  app.post<Verify>(
    '/api/projects/:projectId/requests/count',
    {
      schema: {
        tags,
        summary: 'How many logged mock requests match the filter (exact up to the kept entries)',
        body: RequestFilterSchema,
      },
    },
    async (req) => ({ count: (await matching(req)).length }),
  );
  app.post<Verify>(
    '/api/projects/:projectId/requests/find',
    {
      schema: {
        tags,
        summary: 'The logged mock requests that match the filter, oldest first (at most 500)',
        body: RequestFilterSchema,
      },
    },
    async (req) => (await matching(req)).slice(0, 500).map(({ seq: _seq, ...e }) => e),
  );
  app.delete<{ Params: Params<'projectId'>; Querystring: { session?: string } }>(
    '/api/projects/:projectId/requests',
    {
      schema: {
        tags,
        summary: 'Empty the request log (?session= for one mock session only)',
        querystring: Type.Object({ session: Type.Optional(Type.String({ maxLength: 200 })) }),
      },
    },
    async (req, reply) => {
      await requestLog.clear(caller(req).id, req.params.projectId, req.query.session);
      reply.code(204).send();
    },
  );

  app.get<{ Params: Params<'projectId'> }>(
    '/api/projects/:projectId/requests/stream',
    { schema: { tags, summary: 'Server-Sent Events: one `data:` line of Entry JSON per mock request' } },
    async (req, reply) => {
      const me = caller(req);
      await store.projects.require(me.id, req.params.projectId);
      const open = openStreams.get(me.id) ?? 0;
      if (open >= STREAMS_PER_USER)
        throw new AppError('rate_limited', `At most ${STREAMS_PER_USER} request-log streams may be open at once`);
      openStreams.set(me.id, open + 1);
      let counted = true;
      const release = () => {
        if (!counted) return;
        counted = false;
        const n = (openStreams.get(me.id) ?? 1) - 1;
        if (n <= 0) openStreams.delete(me.id);
        else openStreams.set(me.id, n);
      };
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
        if (res.destroyed) return;
        res.write(`data: ${JSON.stringify(e)}\n\n`);
        // a client that does not read is cut off, not buffered for without bound
        if (res.writableLength > STREAM_QUEUE_BYTES) res.destroy();
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
        // a login token, or an API key (revoked or expired alike end the stream)
        const stands = req.apiKey
          ? store.apiKeys.lookup(tokenHash).then((k) => k !== null)
          : store.loginTokens.user(tokenHash).then((u) => u !== null);
        stands
          .then(
            (ok) => {
              if (!ok) res.end();
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
        release();
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
