/**
 * The data a template reads by name (docs/templates.md "Data"): `request.*`, `vars.*`, `endpoint.*`,
 * `project.*`, `config.*`, `collection.NAME.count|items`, `stream.index|round`, `message.text|json`.
 * Each path is compiled to a getter once; names are looked up as own keys, never through a prototype.
 */
import type { EvalContext, SavedResponse } from '../types.js';
import { requestCookie } from './helpers-data.js';
import { forbidden, type RenderState, walk } from './values.js';

export type Get = (st: RenderState) => unknown;
export type Compiled = { readonly c: true; readonly v: unknown } | { readonly c: false; readonly get: Get };

export const ABSENT: Compiled = { c: true, v: undefined };
export const getter = (get: Get): Compiled => ({ c: false, get });

/** The first names of the paths this module resolves. */
export const ROOT_NAMES: ReadonlySet<string> = new Set([
  'request',
  'vars',
  'endpoint',
  'project',
  'config',
  'collection',
  'stream',
  'message',
]);

/** Parsed bodies of saved responses, so `{{vars.r.body.a}}` and `{{vars.r.body.b}}` parse once. */
const savedJson = new WeakMap<SavedResponse, { ok: boolean; value: unknown }>();

function savedResponseJson(r: SavedResponse): { ok: boolean; value: unknown } {
  let parsed = savedJson.get(r);
  if (parsed === undefined) {
    try {
      parsed = r.body === '' ? { ok: false, value: undefined } : { ok: true, value: JSON.parse(r.body) };
    } catch {
      parsed = { ok: false, value: undefined };
    }
    savedJson.set(r, parsed);
  }
  return parsed;
}

function own(rec: Record<string, string>, key: string): string | undefined {
  return Object.hasOwn(rec, key) ? rec[key] : undefined;
}

function mapGet<V>(m: ReadonlyMap<string, V> | undefined, key: string): V | undefined {
  return forbidden(key) ? undefined : m?.get(key);
}

/** The parsed request body, or its text when it is not JSON ('' → absent). */
function bodyValue(ctx: EvalContext): unknown {
  const doc = ctx.json();
  if (doc.ok) return doc.value;
  return ctx.req.body === '' ? undefined : ctx.req.body;
}

function cookies(st: RenderState): Record<string, string> {
  const out: Record<string, string> = {};
  const header = st.ctx.req.header('cookie');
  if (header === undefined) return out;
  for (const part of header.split(';')) {
    const name = part.slice(0, part.indexOf('=')).trim();
    if (name !== '' && !forbidden(name)) out[name] = requestCookie(st, name) ?? '';
  }
  return out;
}

/**
 * A path from the root. `output`: the path is rendered as it is (`{{request.body}}` gives the body's
 * text), not read as a value (`{{#each request.body}}` walks the parsed body).
 */
export function rootPath(segs: readonly string[], output: boolean): Compiled {
  if (segs.some(forbidden)) return ABSENT;
  const [root, second] = segs;
  switch (root) {
    case 'request':
      return requestPath(segs, output);
    case 'vars':
      return segs.length >= 2 ? varPath(second, segs.slice(2)) : ABSENT;
    case 'endpoint':
    case 'project':
    case 'config': {
      if (segs.length < 2) return ABSENT;
      const name = segs.slice(1).join('.');
      if (root === 'endpoint') return getter((st) => mapGet(st.ctx.storage, name));
      if (root === 'project') return getter((st) => mapGet(st.ctx.projectStorage, name));
      return getter((st) => mapGet(st.ctx.config, name));
    }
    case 'collection': {
      if (segs.length < 3) return ABSENT;
      const name = second;
      if (segs[2] === 'count' && segs.length === 3) return getter((st) => st.ctx.collectionCounts?.get(name));
      if (segs[2] === 'items') return getter((st) => walk(st.ctx.collectionItems?.get(name), segs, 3));
      return ABSENT;
    }
    case 'stream':
      // the event being written and the repetition of a step's `events` (src/runtime/stream.ts)
      if (segs.length === 2 && (second === 'index' || second === 'round'))
        return getter((st) => st.ctx.stream?.[second]);
      return ABSENT;
    case 'message':
      if (second === 'text' && segs.length === 2) return getter((st) => st.ctx.message?.text);
      if (second === 'json') return getter((st) => walk(st.ctx.message?.json(), segs, 2));
      return ABSENT;
    default:
      return ABSENT;
  }
}

/** The Host header's name and port (80 when it names none): what the request was sent to. */
const hostOf = (st: RenderState) => st.ctx.req.header('host')?.replace(/:\d+$/, '');
const portOf = (st: RenderState) => {
  const m = /:(\d+)$/.exec(st.ctx.req.header('host') ?? '');
  return m ? Number(m[1]) : 80;
};

function requestPath(segs: readonly string[], output: boolean): Compiled {
  const second = segs[1];
  if (segs.length === 1) return ABSENT;
  // WireMock's `request.requestLine.*` names the same data as `request.*`
  if (second === 'requestLine') return segs.length > 2 ? requestPath(['request', ...segs.slice(2)], output) : ABSENT;
  if (segs.length === 2) {
    switch (second) {
      case 'method':
        return getter((st) => st.ctx.req.method);
      case 'path':
        return getter((st) => st.ctx.req.path);
      case 'url':
        return getter((st) =>
          st.ctx.req.rawQuery === '' ? st.ctx.req.path : `${st.ctx.req.path}?${st.ctx.req.rawQuery}`,
        );
      case 'rawBody':
        return getter((st) => st.ctx.req.body);
      case 'body':
        return output ? getter((st) => st.ctx.req.body) : getter((st) => bodyValue(st.ctx));
      case 'query':
        return getter((st) => st.ctx.req.query);
      case 'headers':
        return getter((st) => st.ctx.req.headers);
      case 'params':
        return getter((st) => st.ctx.req.params);
      case 'cookies':
        return getter(cookies);
      case 'pathSegments':
        return getter((st) => st.ctx.req.path.split('/').filter(Boolean));
      case 'host':
        return getter(hostOf);
      case 'port':
        return getter(portOf);
      case 'scheme':
        return getter(() => 'http');
      default:
        return ABSENT;
    }
  }
  const rest = segs.slice(2);
  if (second === 'body') {
    return getter((st) => {
      const doc = st.ctx.json();
      return doc.ok ? walk(doc.value, rest) : undefined;
    });
  }
  if (second === 'path' || second === 'pathSegments') {
    // WireMock: `request.path.[0]` is the first path segment
    if (rest.length !== 1 || !/^[0-9]{1,4}$/.test(rest[0])) return ABSENT;
    const i = Number(rest[0]);
    return getter((st) => st.ctx.req.path.split('/').filter(Boolean)[i]);
  }
  const name = rest.join('.');
  if (second === 'params') return getter((st) => own(st.ctx.req.params, name));
  if (second === 'query') return getter((st) => st.ctx.req.queryParam(name));
  if (second === 'headers') {
    const lower = name.toLowerCase();
    return getter((st) => st.ctx.req.header(lower));
  }
  if (second === 'cookies') return getter((st) => requestCookie(st, name));
  return ABSENT;
}

function varPath(name: string, rest: readonly string[]): Compiled {
  if (rest.length === 0) {
    return getter((st) => {
      const v = st.ctx.vars.get(name);
      return v === undefined || typeof v === 'string' ? v : v.body;
    });
  }
  const saved = (st: RenderState): SavedResponse | undefined => {
    const v = st.ctx.vars.get(name);
    return v === undefined || typeof v === 'string' ? undefined : v;
  };
  const [field] = rest;
  if (field === 'status' && rest.length === 1) return getter((st) => saved(st)?.status);
  if (field === 'headers' && rest.length >= 2) {
    const header = rest.slice(1).join('.').toLowerCase();
    return getter((st) => {
      const r = saved(st);
      return r === undefined ? undefined : own(r.headers, header);
    });
  }
  if (field === 'body') {
    if (rest.length === 1) return getter((st) => saved(st)?.body);
    const path = rest.slice(1);
    return getter((st) => {
      const r = saved(st);
      if (r === undefined) return undefined;
      const doc = savedResponseJson(r);
      return doc.ok ? walk(doc.value, path) : undefined;
    });
  }
  return ABSENT;
}
