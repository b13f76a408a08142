/**
 * Who may call a route, declared with the route (`config: { access }`) and checked against the
 * route the router matched — never against the request's spelling of its URL. The dispatcher has
 * already put the target in its one spelling (src/request-target.ts), so the path a guard reads and
 * the path the router routes are the same string.
 *
 * - `public`: no token (register, login, the API docs, health, the dashboard's files);
 * - `user` (every other `/api/*` route): a login token or an API key, the key within its scope and
 *   projects (src/api/api-keys.ts);
 * - `admin`: only the admin token; such routes exist only when `MOCKYARD_ADMIN_TOKEN` is set.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../domain/errors.js';
import { hashToken } from '../domain/passwords.js';
import type { Store } from '../store/index.js';
import { checkKey, KEY_PREFIX } from './api-keys.js';

export type Access = 'public' | 'user' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** who may call the route (src/api/guards.ts); `/api/*` routes default to `user` */
    access?: Access;
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function bearer(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return m ? m[1] : null;
}

/** `/api` and below, and `/mcp`, in any letter case (an unmatched `/API/…` is the API's 404, not the dashboard). */
export const isApiPath = (p: string) => /^\/(api|mcp)(\/|$)/i.test(p);
const isAdminPath = (p: string) => /^\/api\/admin(\/|$)/i.test(p);

/** The access a request needs: its matched route's, or for a path no route matches, by its path. */
function accessOf(req: FastifyRequest): Access {
  const declared = req.routeOptions.config?.access;
  if (req.routeOptions.url !== undefined && declared) return declared;
  const p = (req.url.split('?')[0] ?? '/').replace(/\/+$/, '') || '/';
  if (isAdminPath(p)) return 'admin';
  return isApiPath(p) ? 'user' : 'public';
}

export interface GuardDeps {
  store: Store;
  config: Config;
  /** `mockyard serve --file`: the admin token authenticates as this user (the files' owner) */
  rootOwnerId?: string | null;
}

export function installGuards(app: FastifyInstance, { store, config, rootOwnerId }: GuardDeps): void {
  // every route says who may call it; one that says nothing is `user` under /api, else public
  app.addHook('onRoute', (route) => {
    const access = route.config?.access ?? (isApiPath(route.url) ? 'user' : 'public');
    if (access === 'admin' && !config.adminToken)
      throw new Error(`admin route ${route.url} registered without an admin token`);
    route.config = { ...(route.config ?? {}), access };
  });

  app.addHook('onRequest', async (req) => {
    const access = accessOf(req);
    if (access === 'public') return;
    const token = bearer(req.headers.authorization);
    if (access === 'admin') {
      // without the admin token the admin API does not exist, in any spelling
      if (!config.adminToken) throw new AppError('not_found', 'No such route');
      if (!token || !safeEqual(token, config.adminToken)) throw new AppError('unauthorized');
      return;
    }
    if (!token) throw new AppError('unauthorized');
    if (rootOwnerId && config.adminToken && safeEqual(token, config.adminToken)) {
      // serve --file: the management API of the files' project, with the admin token
      req.user = await store.users.get(rootOwnerId);
      if (!req.user) throw new AppError('unauthorized');
      return;
    }
    const tokenHash = hashToken(token);
    // The lookup is by hash: equal-time comparison of secrets is not needed for an index lookup
    // of a 256-bit random token's hash.
    if (token.startsWith(KEY_PREFIX)) {
      const found = await store.apiKeys.lookup(tokenHash);
      if (!found) throw new AppError('unauthorized');
      req.user = found.user;
      req.apiKey = found.key;
      req.tokenHash = tokenHash;
      checkKey(req);
      return;
    }
    const user = await store.loginTokens.user(tokenHash);
    if (!user) throw new AppError('unauthorized');
    req.user = user;
    req.tokenHash = tokenHash;
  });
}
