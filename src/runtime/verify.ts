/**
 * Request verification (CONTRACT §13): which logged mock requests match a filter. Exact up to the
 * kept-entries limit, over entries read through the log (the queue is flushed first).
 */
import { RE2JS } from 're2js';
import type { RequestFilter, RequestLogEntry } from '../domain/model.js';

export type { RequestFilter };

import { validationError } from '../errors.js';

/** A filter as a predicate; a bad pattern or time is a 400 naming the field. */
export function compileFilter(f: RequestFilter): (e: RequestLogEntry) => boolean {
  let pattern: RE2JS | null = null;
  if (f.pathPattern !== undefined) {
    try {
      pattern = RE2JS.compile(`^(?:${f.pathPattern})$`);
    } catch {
      throw validationError([{ path: '/pathPattern', message: 'pathPattern is not a valid RE2 regular expression' }]);
    }
  }
  let since = Number.NEGATIVE_INFINITY;
  if (f.since !== undefined) {
    since = Date.parse(f.since);
    if (Number.isNaN(since)) throw validationError([{ path: '/since', message: 'since must be an ISO 8601 time' }]);
  }
  const method = f.method?.toUpperCase();
  const headers = Object.entries(f.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v] as const);
  return (e) =>
    (method === undefined || e.method === method) &&
    (f.path === undefined || e.path === f.path) &&
    (pattern === null || pattern.matches(e.path)) &&
    (f.endpointId === undefined || e.endpointId === f.endpointId) &&
    (f.ruleId === undefined || e.ruleId === f.ruleId) &&
    (f.session === undefined || (e.session ?? '') === f.session) &&
    (f.statusCode === undefined || e.statusCode === f.statusCode) &&
    Date.parse(e.at) >= since &&
    headers.every(([k, v]) => Object.hasOwn(e.headers, k) && e.headers[k] === v);
}
