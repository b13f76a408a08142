/**
 * A mock request no endpoint of its project matches (docs/api.md "Mock traffic"): the fallback
 * URL answers it when there is one, a CORS preflight is answered, else `404 mock_not_found` with
 * the nearest endpoints (also noted in the log entry).
 */
import type { ServerResponse } from 'node:http';
import { errorOf } from '../domain/errors.js';
import type { CompiledProject } from './compile.js';
import type { Egress } from './egress.js';
import type { Exchange } from './exchange.js';
import { nearestEndpoints } from './nearest.js';
import { proxy } from './proxy.js';
import { CORS, CSP, jsonError, MOCK_CSP, sendError } from './respond.js';

const NO_ENDPOINT = jsonError('mock_not_found');

/** Answers the request; the status written (a promise while the fallback answers). */
export function answerUnmatched(x: Exchange, project: CompiledProject, egress: Egress): number | Promise<number> {
  const { req, res, method, path } = x;
  // a WebSocket endpoint asked for without an upgrade (docs/websocket.md)
  if (project.router.match('WS', path)) {
    sendError(res, 426, jsonError('upgrade_required'));
    return 426;
  }
  if (project.fallbackUrl) {
    x.proxied = true;
    return proxy(egress, project.fallbackUrl, x.view(), x.rawBody, req, res, undefined, x.checkAnswer);
  }
  if (method === 'OPTIONS') return preflight(x.req.headers, res);
  // what the caller probably meant, in the answer and the log entry
  const near = nearestEndpoints(project.router.routes(), method, path);
  if (near.length === 0) sendError(res, 404, NO_ENDPOINT);
  else {
    x.nearest = near;
    sendError(res, 404, JSON.stringify({ ...errorOf('mock_not_found'), nearest: near }));
  }
  return 404;
}

function preflight(headers: Exchange['req']['headers'], res: ServerResponse): number {
  res.writeHead(204, {
    [CORS]: '*',
    [CSP]: MOCK_CSP,
    'access-control-allow-methods':
      headers['access-control-request-method'] ?? 'GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS',
    'access-control-allow-headers': headers['access-control-request-headers'] ?? '*',
    'access-control-max-age': '86400',
    'content-length': 0,
  });
  res.end();
  return 204;
}
