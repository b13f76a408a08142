/**
 * `http_request`: a webhook through the SSRF-safe egress client, carrying the loop guard
 * (`x-mockyard-hop`). `saveAs` keeps the answer for later templates; `applyResponse` makes it the
 * mock's answer.
 */
import type { CompiledAction } from '../compile.js';
import { EgressError, type EgressResponse, HOP_HEADER } from '../egress.js';
import type { ActionRunner } from './scope.js';

type HttpRequest = Extract<CompiledAction, { type: 'http_request' }>;

/** A webhook that reaches this service again more than this many times is refused. */
export const MAX_HOPS = 3;

export const httpRequest: ActionRunner<HttpRequest> = function* (a, scope, msLeft) {
  const { ctx, hops } = scope;
  if (hops >= MAX_HOPS) throw new EgressError('blocked', `blocked: more than ${MAX_HOPS} hops through this service`);
  const headers: Record<string, string> = {};
  for (const [k, v] of a.headers) headers[k] = v(ctx);
  headers[HOP_HEADER] = String(hops + 1);
  const res = (yield scope.deps.egress.request({
    url: a.url(ctx),
    method: a.method,
    headers,
    body: a.method === 'GET' || a.method === 'HEAD' ? undefined : a.body(ctx),
    timeoutMs: Math.min(a.timeoutMs, msLeft),
  })) as EgressResponse;
  if (a.saveAs) ctx.vars.set(a.saveAs, { status: res.status, headers: res.headers, body: res.body });
  if (a.applyResponse) return { applied: { status: res.status, body: res.body, contentType: res.contentType } };
};
