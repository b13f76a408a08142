/**
 * A Mockoon environment → endpoints, rules and collections (docs/interop.md). Responses with rules
 * become rules in their order (AND in one rule, OR as one rule per Mockoon rule, `invert` as the
 * negated operator); the default response becomes the endpoint's answer; SEQUENTIAL is one looping
 * sequence, RANDOM a chain of `random` conditions with even odds; latency is a delay; callbacks are
 * `http_request` actions; CRUD routes bind the resource's six endpoints to a collection seeded from
 * their data bucket; proxy mode sets the project's fallback URL.
 */

import { RESOURCE } from '../domain/collections.js';
import { COLLECTION_NAME } from '../domain/constants.js';
import type { Action, Condition, Step } from '../domain/model.js';
import { cond } from './matchers.js';
import { Buckets, globalVars } from './mockoon-data.js';
import { conditionOf, type Env } from './mockoon-rules.js';
import { patternOf, RouteBook } from './route-book.js';
import { translateTemplate, verbatim } from './templates.js';
import { type Converted, emptyConverted, isObject, type Json, stepOf, takeContentType } from './types.js';

const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

export function isMockoon(doc: unknown): boolean {
  return (
    isObject(doc) && Array.isArray(doc.routes) && (doc.lastMigration !== undefined || doc.endpointPrefix !== undefined)
  );
}

const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);
const keyValues = (v: unknown): Record<string, string> =>
  Object.fromEntries(
    list(v)
      .filter((h) => typeof h.key === 'string' && h.key !== '')
      .map((h) => [h.key as string, String(h.value ?? '')]),
  );

/** A media type with `charset=utf-8` in place of any charset it names (Express's setCharset). */
function withCharset(type: string): string {
  const params = type
    .split(';')
    .slice(1)
    .map((p) => p.trim())
    .filter((p) => p !== '' && !/^charset=/i.test(p));
  return [type.split(';')[0].trim(), ...params, 'charset=utf-8'].join('; ');
}

function stepOfResponse(res: Json, at: string, env: Env, templated: boolean): Step {
  let body = typeof res.body === 'string' ? res.body : '';
  let bucketBody = false;
  if (res.bodyType === 'DATABUCKET') {
    // the bucket as Mockoon holds it: JSON sent compact, other text as rendered at start
    const bucket = env.buckets.get(String(res.databucketID ?? ''));
    const v = bucket ? env.buckets.value(bucket, `${at}/databucketID`).value : '';
    body = typeof v === 'string' ? v : JSON.stringify(v);
    bucketBody = true;
  } else if (res.bodyType === 'FILE') {
    env.warnings.push({
      pointer: `${at}/filePath`,
      message: 'a file body is not imported; the answer is its inline body',
    });
  }
  // the environment's headers, then the response's (Express sets a name once, any letter case);
  // values are templates, as Mockoon renders them
  const headers: Record<string, string> = {};
  for (const [k, v] of [...Object.entries(env.headers), ...Object.entries(keyValues(res.headers))]) {
    for (const old of Object.keys(headers)) if (old.toLowerCase() === k.toLowerCase()) delete headers[old];
    headers[k] = translateTemplate(v, { dialect: 'mockoon', pointer: `${at}/headers`, warnings: env.warnings });
  }
  // a body is sent with Express's res.send: a type without one is text/html, and its charset utf-8
  const type = withCharset(takeContentType(headers) ?? 'text/html');
  if (templated && !bucketBody)
    body = translateTemplate(env.buckets.inline(globalVars(body, `${at}/body`, env.warnings).body, `${at}/body`), {
      dialect: 'mockoon',
      pointer: `${at}/body`,
      warnings: env.warnings,
    });
  else body = verbatim(body);
  const latency = Math.max(0, Math.min(60_000, env.latency + (Number(res.latency) || 0)));
  const status = Number(res.statusCode);
  return stepOf({
    statusCode: Number.isInteger(status) && status >= 100 && status <= 599 ? status : 200,
    body,
    headers: { 'content-type': type, ...headers },
    delayMs: latency,
  });
}

function actionsOf(res: Json, at: string, env: Env): Action[] {
  // top-level setGlobalVar of a rendered body: stored in the project (its warnings come from stepOfResponse)
  const rendered = res.disableTemplating !== true && res.bodyType !== 'DATABUCKET' && typeof res.body === 'string';
  const sets: Action[] = (rendered ? globalVars(res.body as string, '', []).sets : []).map((s) => ({
    type: 'store_variable',
    name: s.name,
    value: translateTemplate(s.value, { dialect: 'mockoon', pointer: `${at}/body`, warnings: [] }),
    scope: 'project',
    onError: 'continue',
  }));
  return [...sets, ...callbackActions(res, at, env)];
}

function callbackActions(res: Json, at: string, env: Env): Action[] {
  return list(res.callbacks).flatMap((c, i): Action[] => {
    const cb = env.callbacks.get(String(c.uuid ?? ''));
    if (!cb || typeof cb.uri !== 'string') {
      env.warnings.push({ pointer: `${at}/callbacks/${i}`, message: 'names no callback of the environment' });
      return [];
    }
    if (Number(c.latency) > 0)
      env.warnings.push({
        pointer: `${at}/callbacks/${i}/latency`,
        message: 'callback latency is not translated: the call is made before the answer',
      });
    const t = (s: string) =>
      translateTemplate(s, { dialect: 'mockoon', pointer: `${at}/callbacks/${i}`, warnings: env.warnings });
    return [
      {
        type: 'http_request',
        url: t(cb.uri),
        method: typeof cb.method === 'string' ? cb.method.toUpperCase() : 'POST',
        headers: keyValues(cb.headers),
        body: typeof cb.body === 'string' ? t(cb.body) : '',
        applyResponse: false,
        timeoutMs: 5000,
        onError: 'continue',
      },
    ];
  });
}

const collectionName = (name: string, id: string) => {
  const n = name.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64);
  return COLLECTION_NAME.test(n) ? n : `bucket_${id.replace(/[^A-Za-z0-9_-]/g, '')}`.slice(0, 64);
};

function crudRoute(route: Json, at: string, base: string, env: Env, book: RouteBook, out: Converted): void {
  const res = list(route.responses)[0] ?? {};
  const bucket = env.buckets.get(String(res.databucketID ?? ''));
  if (!bucket) {
    env.warnings.push({
      pointer: `${at}/responses/0/databucketID`,
      message: 'a CRUD route without a data bucket is not imported',
    });
    return;
  }
  const name = collectionName(String(bucket.name ?? bucket.id ?? 'data'), String(bucket.id ?? ''));
  if (!out.collections.some((c) => c.name === name)) {
    let seed: Record<string, unknown>[] = [];
    // a templated bucket is rendered once, as Mockoon does when it starts
    const value = env.buckets.value(bucket, `${at}/responses/0/databucketID`).value;
    if (Array.isArray(value) && value.every(isObject)) seed = value as Record<string, unknown>[];
    else
      env.warnings.push({
        pointer: `${at}/responses/0/databucketID`,
        message: `data bucket ${name} is not an array of objects; the collection starts empty`,
      });
    const idField = typeof res.crudKey === 'string' && res.crudKey !== '' ? res.crudKey : 'id';
    out.collections.push({ name, idField, seed, pointer: at });
  }
  for (const [method, suffix, operation] of RESOURCE) {
    const ep = book.endpoint(method, base === '/' ? suffix || '/' : `${base}${suffix}`, at);
    if (ep) ep.data = { collection: name, operation };
  }
}

/** Messages a streaming WebSocket route sends (Mockoon streams until the socket closes). */
const STREAMED_MESSAGES = 100;

/**
 * A WebSocket route (docs/websocket.md): in conversational mode its responses answer messages, with
 * their rules on the message (`body`), as an HTTP route's answer requests; in a streaming mode its
 * responses are sent in turn every `streamingInterval` ms from the connect, 100 of them.
 */
function wsRoute(route: Json, at: string, pattern: string, env: Env, book: RouteBook): void {
  const mode = route.streamingMode ?? null;
  if (mode === null) {
    httpRoute({ ...route, method: 'WS' }, at, pattern, env, book);
    return;
  }
  const ep = book.endpoint('WS', pattern, at);
  const responses = list(route.responses);
  if (!ep || responses.length === 0) return;
  const steps = responses.map((r, i) => stepOfResponse(r, `${at}/responses/${i}`, env, r.disableTemplating !== true));
  const interval = Math.max(0, Math.min(60_000, Number(route.streamingInterval) || 0));
  const messages = Array.from({ length: STREAMED_MESSAGES }, (_, i) => ({
    body: steps[i % steps.length].body,
    delayMs: i === 0 ? 0 : interval,
  }));
  book.addRule(ep, {
    name: 'stream',
    on: 'connect',
    conditions: [],
    response: { mode: 'loop', steps: [{ ...steps[0], messages }] },
    actions: [],
    pointer: at,
  });
  env.warnings.push({
    pointer: `${at}/streamingMode`,
    message: `${String(mode)} streaming becomes ${STREAMED_MESSAGES} messages from the connect, one every ${interval} ms${mode === 'BROADCAST' ? ', to each socket on its own (use a channel and pushes to share them)' : ''}`,
  });
}

function httpRoute(route: Json, at: string, pattern: string, env: Env, book: RouteBook): void {
  const responses = list(route.responses);
  const method = String(route.method ?? 'get').toUpperCase();
  const methods = method === 'ALL' ? ALL_METHODS : [method];
  const mode = route.responseMode ?? null;
  const steps = responses.map((r, i) => stepOfResponse(r, `${at}/responses/${i}`, env, r.disableTemplating !== true));
  const defaultIndex = Math.max(
    0,
    responses.findIndex((r) => r.default === true),
  );
  for (const m of methods) {
    const ep = book.endpoint(m, pattern, at);
    if (!ep || responses.length === 0) continue;
    if (mode === 'SEQUENTIAL') {
      book.addRule(ep, {
        name: 'sequential',
        conditions: [],
        response: { mode: 'loop', steps },
        actions: [],
        pointer: at,
      });
      continue;
    }
    if (mode === 'RANDOM') {
      responses.forEach((r, i) => {
        const odds =
          i === responses.length - 1
            ? []
            : [
                cond(
                  'random',
                  'less_than',
                  undefined,
                  String(Math.round((100 / (responses.length - i)) * 1000) / 1000),
                ),
              ];
        book.addRule(ep, {
          name: String(r.label || `random ${i + 1}`),
          conditions: odds,
          response: { mode: 'loop', steps: [steps[i]] },
          actions: actionsOf(r, `${at}/responses/${i}`, env),
          pointer: `${at}/responses/${i}`,
        });
      });
      continue;
    }
    if (mode !== null && mode !== 'DISABLE_RULES' && mode !== 'FALLBACK')
      env.warnings.push({
        pointer: `${at}/responseMode`,
        message: `response mode ${String(mode)} is treated as the default mode`,
      });
    if (mode !== 'DISABLE_RULES') {
      responses.forEach((r, i) => {
        const rules = list(r.rules);
        // every response with rules is tried in its order, the default one included (Mockoon's `find`)
        if (rules.length === 0) return;
        const rp = `${at}/responses/${i}`;
        const tests = rules.map((x, j) => conditionOf(x, `${rp}/rules/${j}`, pattern, env));
        const active = !tests.includes(null);
        const kept = tests.filter((c): c is Condition => typeof c === 'object' && c !== null);
        let groups: Condition[][];
        if (r.rulesOperator === 'AND') {
          // a rule on a fixed value that fails: the response is never chosen
          if (tests.includes(false)) return;
          groups = [kept];
        } else if (tests.includes(true)) groups = [[]];
        else if (kept.length === 0) groups = active ? [] : [[]];
        else groups = kept.length === 1 ? [kept] : kept.map((c) => [c]);
        for (const g of groups)
          book.addRule(ep, {
            name: String(r.label || `response ${i + 1}`),
            active,
            conditions: g,
            response: { mode: 'loop', steps: [steps[i]] },
            actions: actionsOf(r, rp, env),
            pointer: rp,
          });
      });
    }
    // FALLBACK: when no rule holds, Mockoon goes on to the next route; here the endpoint answers 404
    if (mode === 'FALLBACK') continue;
    const d = responses[defaultIndex];
    book.addRule(ep, {
      name: String(d.label || 'default'),
      conditions: [],
      response: { mode: 'loop', steps: [steps[defaultIndex]] },
      actions: actionsOf(d, `${at}/responses/${defaultIndex}`, env),
      pointer: `${at}/responses/${defaultIndex}`,
    });
  }
}

/** A Mockoon environment → drafts (call `isMockoon` first). */
export function convertMockoon(doc: Json): Converted {
  const out = emptyConverted('mockoon');
  if (typeof doc.name === 'string' && doc.name.trim() !== '') out.name = doc.name;
  const env: Env = {
    doc,
    warnings: out.warnings,
    buckets: new Buckets(list(doc.data), out.warnings),
    callbacks: new Map(list(doc.callbacks).map((c) => [String(c.uuid ?? ''), c])),
    headers: keyValues(doc.headers),
    latency: Math.max(0, Number(doc.latency) || 0),
  };
  if (doc.proxyMode === true && typeof doc.proxyHost === 'string' && doc.proxyHost !== '')
    out.fallbackUrl = doc.proxyHost;
  const prefix = typeof doc.endpointPrefix === 'string' ? doc.endpointPrefix : '';
  const book = new RouteBook(out);
  list(doc.routes).forEach((route, i) => {
    const at = `/routes/${i}`;
    const endpoint = typeof route.endpoint === 'string' ? route.endpoint : '';
    if (/[()?+]/.test(endpoint))
      env.warnings.push({
        pointer: `${at}/endpoint`,
        message: 'regular-expression parts of the route are taken literally',
      });
    const pattern = patternOf(`/${prefix}/${endpoint}`);
    const type = route.type ?? 'http';
    if (type === 'crud') crudRoute(route, at, pattern, env, book, out);
    else if (type === 'http') httpRoute(route, at, pattern, env, book);
    else if (type === 'ws') wsRoute(route, at, pattern, env, book);
    else {
      out.skipped.push({
        method: String(route.method ?? ''),
        path: pattern,
        reason: `${String(type)} routes are not supported`,
      });
      env.warnings.push({ pointer: at, message: `${String(type)} routes are not supported` });
    }
    if (route.streamingMode && type !== 'ws')
      env.warnings.push({ pointer: `${at}/streamingMode`, message: 'streaming is not translated' });
  });
  book.finish();
  return out;
}
