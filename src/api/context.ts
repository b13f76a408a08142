import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../domain/errors.js';
import type { User } from '../domain/model.js';
import type { RequestLog } from '../runtime/request-log.js';
import type { SocketHub } from '../runtime/ws/hub.js';
import type { Store } from '../store/index.js';

/** What the route modules need, passed in once (no globals). */
export interface ApiDeps {
  config: Config;
  store: Store;
  requestLog: RequestLog;
  /** this process's WebSockets (docs/websocket.md); absent in tests that build the app alone */
  sockets?: SocketHub;
  /** the PostgreSQL change feed's state, shown by /healthz (absent on SQLite) */
  changeFeed?: () => { listening: boolean; attempts: number; pending: boolean };
}

declare module 'fastify' {
  interface FastifyRequest {
    user: User | null;
    tokenHash: string | null;
  }
}

/** The authenticated caller (the auth hook has run for every /api route that needs one). */
export function caller(req: FastifyRequest): User {
  if (!req.user) throw new AppError('unauthorized');
  return req.user;
}

export type Params<K extends string> = { [P in K]: string };
