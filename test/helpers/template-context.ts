/**
 * A deterministic template context for the template tests (src/runtime/template*.test.ts): a fixed
 * clock, counting uuids, a scripted random source, json() parsed at most once.
 */
import { compileTemplate } from '../../src/runtime/template.js';
import type { EvalContext, RequestView, VarValue } from '../../src/runtime/types.js';

export const NOW = Date.UTC(2024, 0, 15, 12, 0, 0); // 2024-01-15T12:00:00.000Z

export function record(entries: Record<string, string> = {}): Record<string, string> {
  return Object.assign(Object.create(null), entries);
}

export interface CtxOptions {
  req?: Partial<RequestView>;
  vars?: Record<string, VarValue>;
  storage?: Record<string, string>;
  projectStorage?: Record<string, string>;
  rng?: number[];
}

/** A deterministic context: fixed clock, counting uuids, scripted rng, json() parsed at most once. */
export function makeCtx(o: CtxOptions = {}): EvalContext & { jsonCalls: number } {
  const req: RequestView = {
    method: 'GET',
    path: '/',
    rawQuery: '',
    ...o.req,
    query: record(o.req?.query),
    headers: record(o.req?.headers),
    params: record(o.req?.params),
    body: o.req?.body ?? '',
    header(name) {
      return Object.hasOwn(this.headers, name) ? this.headers[name] : undefined;
    },
    queryParam(name) {
      return Object.hasOwn(this.query, name) ? this.query[name] : undefined;
    },
  };
  const rolls = [...(o.rng ?? [0.5])];
  let uuids = 0;
  let parsed: { ok: true; value: unknown } | { ok: false } | undefined;
  const ctx = {
    req,
    vars: new Map(Object.entries(o.vars ?? {})),
    storage: new Map(Object.entries(o.storage ?? {})),
    projectStorage: new Map(Object.entries(o.projectStorage ?? {})),
    jsonCalls: 0,
    rng: () => (rolls.length > 1 ? (rolls.shift() as number) : rolls[0]),
    now: () => NOW,
    uuid: () => `00000000-0000-4000-8000-${String(++uuids).padStart(12, '0')}`,
    json() {
      ctx.jsonCalls++;
      if (parsed === undefined) {
        try {
          parsed = req.body === '' ? { ok: false } : { ok: true, value: JSON.parse(req.body) };
        } catch {
          parsed = { ok: false };
        }
      }
      return parsed;
    },
  };
  return ctx;
}

export const render = (src: string, o?: CtxOptions) => compileTemplate(src)(makeCtx(o));
