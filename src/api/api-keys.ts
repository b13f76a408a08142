/**
 * API keys (docs/testing.md): the routes that make, list and revoke them, and what a request made with
 * one may do — `read` keys only read (and verify), keys limited to projects see only those (others
 * are 404, as a foreign project is), and no key may manage keys or the account.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, validationError } from '../domain/errors.js';
import type { ApiKey, ApiKeyFields } from '../domain/model.js';
import { hashToken, newToken } from '../domain/passwords.js';
import { ApiKeyBody, ApiKeyRecord } from '../domain/records.js';
import { type ApiDeps, caller, type Params } from './context.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** the API key the request was made with (null: a login token or none) */
    apiKey: ApiKey | null;
  }
}

/** Keys are told apart from login tokens by their prefix. */
export const KEY_PREFIX = 'myk_';

const forbidden = (message: string) => new AppError('forbidden', message);
/** Routes (as registered) that are reads although they are POSTs: verification. */
const READ_POSTS = new Set([
  '/api/projects/:projectId/requests/count',
  '/api/projects/:projectId/requests/find',
  // the MCP transport: each tool call is checked again as the API call it makes
  '/mcp',
]);
/** Routes no key may call: keys, the password, the account, logging out a login session. */
const KEYLESS = /^\/api\/auth\/(keys|password|logout|account)(\/|$)/;

/**
 * Throws unless the request's API key allows it (a request made with a login token is not checked).
 * Reads the route the router matched and its parameters, never the URL as spelled.
 */
export function checkKey(req: FastifyRequest): void {
  const key = req.apiKey;
  if (!key) return;
  const route = req.routeOptions.url ?? '';
  if (KEYLESS.test(route)) throw forbidden('An API key cannot manage keys, the password or the account');
  const reading = req.method === 'GET' || req.method === 'HEAD' || (req.method === 'POST' && READ_POSTS.has(route));
  if (key.scope === 'read' && !reading) throw forbidden('This API key may only read');
  if (key.projectIds) {
    if (route === '/api/projects' && req.method !== 'GET') throw forbidden('This API key is limited to its projects');
    if (route === '/api/projects/import') throw forbidden('This API key is limited to its projects');
    const params = (req.params ?? {}) as Record<string, string | undefined>;
    const projectId = params.projectId ?? (route.startsWith('/api/projects/:id') ? params.id : undefined);
    if (projectId !== undefined && !key.projectIds.includes(projectId))
      throw new AppError('not_found', 'No such project');
    // a route outside any project (other than listing projects and the caller) is not for a limited key
    if (projectId === undefined && !['/api/projects', '/api/auth/me', '/mcp', ''].includes(route))
      throw forbidden('This API key is limited to its projects');
  }
}

export function apiKeyRoutes(app: FastifyInstance, { store }: ApiDeps): void {
  const tags = ['auth'];
  app.post<{ Body: ApiKeyFields }>(
    '/api/auth/keys',
    {
      schema: {
        tags,
        summary: 'Create an API key (the key is in this answer only)',
        body: ApiKeyBody,
        response: { 201: Type.Composite([ApiKeyRecord, Type.Object({ key: Type.String() })]) },
      },
    },
    async (req, reply) => {
      const me = caller(req);
      const { name, scope, projectIds, expiresAt } = req.body;
      if (expiresAt !== undefined) {
        const t = Date.parse(expiresAt);
        if (Number.isNaN(t) || t <= Date.now())
          throw validationError([{ path: '/expiresAt', message: 'expiresAt must be an ISO 8601 time in the future' }]);
      }
      if (projectIds) {
        for (const [i, id] of projectIds.entries()) {
          if (!(await store.projects.get(me.id, id)))
            throw validationError([{ path: `/projectIds/${i}`, message: 'names no project of yours' }]);
        }
      }
      const key = `${KEY_PREFIX}${newToken()}`;
      const made = await store.apiKeys.create(me.id, hashToken(key), {
        name,
        scope,
        projectIds: projectIds ? [...new Set(projectIds)] : null,
        expiresAt: expiresAt ? new Date(expiresAt).toISOString() : null,
      });
      reply.code(201);
      return { ...made, key };
    },
  );
  app.get(
    '/api/auth/keys',
    {
      schema: {
        tags,
        summary: 'Your API keys (never the keys themselves)',
        response: { 200: Type.Array(ApiKeyRecord) },
      },
    },
    async (req) => store.apiKeys.list(caller(req).id),
  );
  app.delete<{ Params: Params<'id'> }>(
    '/api/auth/keys/:id',
    { schema: { tags, summary: 'Revoke an API key: it stops working at once' } },
    async (req, reply) => {
      if (!(await store.apiKeys.delete(caller(req).id, req.params.id))) throw new AppError('not_found', 'No such key');
      reply.code(204).send();
    },
  );
}
