/**
 * Request verification (docs/testing.md): which logged mock requests match a filter. Exact up to the
 * kept-entries limit, over entries read through the log (the queue is flushed first).
 */
import type { RequestFilter, RequestLogEntry } from '../domain/model.js';

export type { RequestFilter };

import { validationError } from '../domain/errors.js';
import { type BoundedRegex, compileBounded } from '../domain/regex.js';

/** How long verification matches before it lets other work run (src/domain/regex.ts bounds each match). */
const SLICE_MS = 20;

/** A filter as a predicate; a bad pattern or time is a 400 naming the field. */
export function compileFilter(f: RequestFilter): (e: RequestLogEntry) => boolean {
  let pattern: BoundedRegex | null = null;
  if (f.pathPattern !== undefined) {
    try {
      pattern = compileBounded(`^(?:${f.pathPattern})$`, 6);
    } catch (e) {
      const why = e instanceof Error ? e.message : 'invalid';
      throw validationError([
        { path: '/pathPattern', message: `pathPattern is not a usable RE2 regular expression: ${why}` },
      ]);
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
    (f.violations === undefined || hasViolations(e) === f.violations) &&
    Date.parse(e.at) >= since &&
    headers.every(([k, v]) => Object.hasOwn(e.headers, k) && e.headers[k] === v);
}

const hasViolations = (e: RequestLogEntry): boolean =>
  e.violations !== undefined && e.violations.request.length + e.violations.response.length > 0;

/**
 * The entries that pass `test`, in order; the matching gives the event loop back every
 * `SLICE_MS`, so a verification call over many long paths never holds the process.
 */
export async function filterEntries<E extends RequestLogEntry>(
  entries: readonly E[],
  test: (e: E) => boolean,
): Promise<E[]> {
  const out: E[] = [];
  let sliceStart = performance.now();
  for (let i = 0; i < entries.length; i++) {
    if (test(entries[i])) out.push(entries[i]);
    if ((i & 7) === 7 && performance.now() - sliceStart > SLICE_MS) {
      await new Promise((r) => setImmediate(r));
      sliceStart = performance.now();
    }
  }
  return out;
}
