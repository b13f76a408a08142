/**
 * A request context for the condition tests (src/runtime/conditions*.test.ts): the request's view,
 * stored values and variables, a fixed random number, json() parsed at most once.
 */
import type { EvalContext, RequestView } from '../../src/runtime/types.js';

export function record(entries: Record<string, string> = {}): Record<string, string> {
  return Object.assign(Object.create(null), entries);
}

export interface State {
  storage?: Record<string, string>;
  projectStorage?: Record<string, string>;
  vars?: Record<string, string | { status: number; headers: Record<string, string>; body: string }>;
}

export function makeCtx(req: Partial<RequestView> = {}, rng = 0.5, state: State = {}): EvalContext {
  const view: RequestView = {
    method: 'GET',
    path: '/x',
    rawQuery: '',
    body: '',
    ...req,
    query: record(req.query),
    headers: record(req.headers),
    params: record(req.params),
    header(name) {
      return Object.hasOwn(this.headers, name) ? this.headers[name] : undefined;
    },
    queryParam(name) {
      return Object.hasOwn(this.query, name) ? this.query[name] : undefined;
    },
  };
  let parsed: { ok: true; value: unknown } | { ok: false } | undefined;
  return {
    req: view,
    vars: new Map(Object.entries(state.vars ?? {})),
    storage: new Map(Object.entries(state.storage ?? {})),
    projectStorage: new Map(Object.entries(state.projectStorage ?? {})),
    rng: () => rng,
    now: () => 0,
    uuid: () => '00000000-0000-4000-8000-000000000000',
    json() {
      if (parsed === undefined) {
        try {
          parsed = view.body === '' ? { ok: false } : { ok: true, value: JSON.parse(view.body) };
        } catch {
          parsed = { ok: false };
        }
      }
      return parsed;
    },
  };
}
