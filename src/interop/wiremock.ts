/**
 * WireMock 2/3 stub mappings → endpoints and rules (docs/interop.md has the mapping table). One stub,
 * or `{mappings: [...]}`. Stubs on one method and path become one endpoint; their rules are ordered as
 * WireMock matches: by `priority` (1 first, default 5), then the stub added last first. Scenarios
 * become a project variable `scenario_<name>` (absent = "Started") tested by a condition and moved by
 * store/delete actions; webhooks become `http_request` actions.
 */
import type { Action, Condition, Step } from '../domain/model.js';
import { cond, wiremockPattern } from './matchers.js';
import { patternOf, RouteBook } from './route-book.js';
import { translateTemplate, verbatim } from './templates.js';
import {
  type Converted,
  emptyConverted,
  type ImportWarning,
  isObject,
  type Json,
  pointerOf,
  sniffContentType,
  stepOf,
  takeContentType,
} from './types.js';

const ANY_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const FAULTS: Record<string, Step['fault']> = {
  CONNECTION_RESET_BY_PEER: 'connection_reset',
  EMPTY_RESPONSE: 'empty_response',
  MALFORMED_RESPONSE_CHUNK: 'malformed_body',
  RANDOM_DATA_THEN_CLOSE: 'malformed_body',
};
const KNOWN_REQUEST = new Set([
  'method',
  'url',
  'urlPath',
  'urlPattern',
  'urlPathPattern',
  'urlPathTemplate',
  'queryParameters',
  'headers',
  'bodyPatterns',
]);
const KNOWN_RESPONSE = new Set([
  'status',
  'body',
  'jsonBody',
  'base64Body',
  'headers',
  'fixedDelayMilliseconds',
  'delayDistribution',
  'fault',
  'transformers',
]);
const IGNORED_STUB = new Set(['id', 'uuid', 'name', 'persistent', 'metadata', 'insertionIndex']);

/** A WireMock stub, or a `{mappings}` document. */
export function isWireMock(doc: unknown): boolean {
  if (!isObject(doc)) return false;
  if (Array.isArray(doc.mappings)) return doc.mappings.every((m) => isObject(m) && isObject(m.request));
  return isObject(doc.request) && isObject(doc.response);
}

export const scenarioVar = (name: string) => `scenario_${name.replace(/[^A-Za-z0-9_]/g, '_')}`.slice(0, 64);

interface Where {
  pattern: string;
  conditions: Condition[];
  params: (string | null)[];
}

/** The stub's URL matcher → an endpoint pattern and the conditions that narrow it. */
function urlOf(req: Json): Where {
  const conditions: Condition[] = [];
  const segmentsOf = (p: string) =>
    p
      .split('/')
      .filter((s) => s !== '')
      .map((s) => (s.startsWith(':') ? s.slice(1) : null));
  if (typeof req.url === 'string') {
    // `url` is the whole path and query, exactly: `/q` does not answer `/q?a=1`, nor `/q?a=1` `/q?a=1&b=2`
    // (the query as a condition of its own, so the rule still holds on a copy of the endpoint elsewhere)
    const q = req.url.indexOf('?');
    conditions.push(
      q < 0 ? cond('query_string', 'not_exists') : cond('query_string', 'equals', undefined, req.url.slice(q + 1)),
    );
    return { pattern: patternOf(q < 0 ? req.url : req.url.slice(0, q), { params: false }), conditions, params: [] };
  }
  if (typeof req.urlPath === 'string')
    return { pattern: patternOf(req.urlPath, { params: false }), conditions, params: [] };
  if (typeof req.urlPathTemplate === 'string') {
    const pattern = patternOf(req.urlPathTemplate.replace(/\{([^{}]+)\}/g, ':$1'));
    return { pattern, conditions, params: segmentsOf(pattern) };
  }
  // `urlPattern` is matched against the path and query, `urlPathPattern` against the path (both whole)
  const whole = typeof req.urlPathPattern !== 'string';
  const regex = whole ? req.urlPattern : req.urlPathPattern;
  if (typeof regex === 'string') {
    const body = regex.replace(/^\^/, '').replace(/\$$/, '');
    const pathPart = whole ? body.split('\\?', 1)[0] : body;
    const literal: string[] = [];
    let plain = true;
    for (const s of pathPart.split('/').slice(1)) {
      if (/^[\w~%-]*$/.test(s) && s !== '') literal.push(s);
      else {
        plain = false;
        break;
      }
    }
    if (whole) conditions.push(cond('url', 'matches_regex', undefined, `^(?:${body})$`));
    if (plain && pathPart === body && body.startsWith('/'))
      return { pattern: patternOf(body, { params: false }), conditions, params: [] };
    if (!whole) conditions.push(cond('path', 'matches_regex', undefined, `^(?:${body})$`));
    return { pattern: `/${[...literal, '*'].join('/')}`, conditions, params: [] };
  }
  return { pattern: '/*', conditions, params: [] };
}

function bodyOf(res: Json, at: string, warnings: ImportWarning[]): { body: string; json: boolean } {
  if (res.jsonBody !== undefined) return { body: JSON.stringify(res.jsonBody, null, 2), json: true };
  if (typeof res.body === 'string') return { body: res.body, json: false };
  if (typeof res.base64Body === 'string') {
    const bytes = Buffer.from(res.base64Body, 'base64');
    const text = bytes.toString('utf8');
    if (Buffer.from(text, 'utf8').equals(bytes)) return { body: text, json: false };
    warnings.push({
      pointer: `${at}/base64Body`,
      message: 'a binary body cannot be a Mockyard body; the answer is empty',
    });
    return { body: '', json: false };
  }
  if (res.bodyFileName !== undefined)
    warnings.push({
      pointer: `${at}/bodyFileName`,
      message: 'bodyFileName (a file beside the mappings) is not imported; the answer is empty',
    });
  return { body: '', json: false };
}

function delayOf(res: Json, at: string, warnings: ImportWarning[]): Pick<Step, 'delayMs' | 'delayMaxMs'> {
  const ms = (v: unknown) => Math.max(0, Math.min(60_000, Math.round(Number(v) || 0)));
  let delayMs = ms(res.fixedDelayMilliseconds);
  let delayMaxMs = 0;
  const d = res.delayDistribution;
  if (isObject(d)) {
    if (d.type === 'uniform') {
      delayMs += ms(d.lower);
      delayMaxMs = delayMs - ms(d.lower) + ms(d.upper);
    } else if (d.type === 'lognormal') {
      const median = ms(d.median);
      delayMs += Math.round(median / 2);
      delayMaxMs = delayMs + median;
      warnings.push({
        pointer: `${at}/delayDistribution`,
        message: `lognormal delay approximated as uniform ${delayMs}–${delayMaxMs} ms`,
      });
    } else if (d.type === 'fixed') {
      delayMs += ms(d.milliseconds);
    } else
      warnings.push({
        pointer: `${at}/delayDistribution`,
        message: `delay distribution ${String(d.type)} not translated`,
      });
  }
  return { delayMs, delayMaxMs };
}

function headersOf(raw: unknown): Record<string, string> {
  const h: Record<string, string> = {};
  if (!isObject(raw)) return h;
  for (const [k, v] of Object.entries(raw)) h[k] = Array.isArray(v) ? v.map(String).join(', ') : String(v);
  return h;
}

function webhooks(stub: Json, at: string, warnings: ImportWarning[], params: (string | null)[]): Action[] {
  const actions: Action[] = [];
  const lists: [string, unknown][] = [
    ['postServeActions', stub.postServeActions],
    ['serveEventListeners', stub.serveEventListeners],
  ];
  for (const [field, list] of lists) {
    if (list === undefined) continue;
    const items: [string, unknown, unknown][] = Array.isArray(list)
      ? list.map((l, i) => [
          `${at}/${field}/${i}`,
          isObject(l) ? l.name : undefined,
          isObject(l) ? l.parameters : undefined,
        ])
      : isObject(list)
        ? Object.entries(list).map(([k, v]) => [`${at}/${field}${pointerOf(k)}`, k, v])
        : [];
    for (const [p, name, parameters] of items) {
      if (name !== 'webhook' || !isObject(parameters) || typeof parameters.url !== 'string') {
        warnings.push({ pointer: p, message: `${String(name)} is not translated (only webhook is)` });
        continue;
      }
      const t = (s: string) =>
        translateTemplate(s.replaceAll('originalRequest.', 'request.'), {
          dialect: 'wiremock',
          pointer: p,
          warnings,
          params,
        });
      if (parameters.delay !== undefined)
        warnings.push({
          pointer: `${p}/parameters/delay`,
          message: 'webhook delays are not translated: the call is made before the answer',
        });
      actions.push({
        type: 'http_request',
        url: t(parameters.url),
        method: typeof parameters.method === 'string' ? parameters.method.toUpperCase() : 'POST',
        headers: Object.fromEntries(Object.entries(headersOf(parameters.headers)).map(([k, v]) => [k, t(v)])),
        body:
          typeof parameters.body === 'string'
            ? t(parameters.body)
            : parameters.jsonBody !== undefined
              ? JSON.stringify(parameters.jsonBody)
              : '',
        applyResponse: false,
        timeoutMs: 5000,
        onError: 'continue',
      });
    }
  }
  return actions;
}

function addStub(book: RouteBook, stub: Json, at: string, out: Converted): void {
  const { warnings } = out;
  const req = isObject(stub.request) ? stub.request : {};
  const res = isObject(stub.response) ? stub.response : {};
  for (const k of Object.keys(stub))
    if (
      ![
        'request',
        'response',
        'priority',
        'scenarioName',
        'requiredScenarioState',
        'newScenarioState',
        'postServeActions',
        'serveEventListeners',
      ].includes(k) &&
      !IGNORED_STUB.has(k)
    )
      warnings.push({ pointer: `${at}${pointerOf(k)}`, message: `${k} is not translated` });
  let unknownMatcher = false;
  for (const k of Object.keys(req))
    if (!KNOWN_REQUEST.has(k)) {
      warnings.push({
        pointer: `${at}/request${pointerOf(k)}`,
        message: `request.${k} is not translated; the rule is imported inactive`,
      });
      unknownMatcher = true;
    }
  for (const k of Object.keys(res))
    if (!KNOWN_RESPONSE.has(k) && k !== 'bodyFileName' && k !== 'statusMessage')
      warnings.push({ pointer: `${at}/response${pointerOf(k)}`, message: `response.${k} is not translated` });

  const where = urlOf(req);
  const conditions = [...where.conditions];
  let active = !unknownMatcher;
  const push = (cs: Condition[] | null) => {
    if (cs) conditions.push(...cs);
    else active = false;
  };
  const byName = (field: 'queryParameters' | 'headers', target: 'query' | 'header') => {
    const m = req[field];
    if (!isObject(m)) return;
    for (const [name, pattern] of Object.entries(m))
      push(
        wiremockPattern(
          target,
          target === 'header' ? name.toLowerCase() : name,
          pattern,
          `${at}/request/${field}${pointerOf(name)}`,
          warnings,
        ),
      );
  };
  byName('queryParameters', 'query');
  byName('headers', 'header');
  if (Array.isArray(req.bodyPatterns))
    req.bodyPatterns.forEach((p, i) => {
      push(wiremockPattern('body', undefined, p, `${at}/request/bodyPatterns/${i}`, warnings));
    });

  const actions = webhooks(stub, at, warnings, where.params);
  if (typeof stub.scenarioName === 'string') {
    const name = scenarioVar(stub.scenarioName);
    const required = stub.requiredScenarioState;
    if (typeof required === 'string')
      conditions.push(
        required === 'Started' ? cond('project', 'not_exists', name) : cond('project', 'equals', name, required),
      );
    const next = stub.newScenarioState;
    if (typeof next === 'string')
      actions.unshift(
        next === 'Started'
          ? { type: 'delete_variable', name, scope: 'project', onError: 'continue' }
          : { type: 'store_variable', name, value: next, scope: 'project', onError: 'continue' },
      );
  }

  const { body, json } = bodyOf(res, `${at}/response`, warnings);
  const headers = headersOf(res.headers);
  const type = takeContentType(headers) ?? (json ? 'application/json' : sniffContentType(body));
  // WireMock 3 renders a stub's answer only with the `response-template` transformer (local templating,
  // its default): without it `{{…}}` is served as written
  const templating = Array.isArray(res.transformers) && res.transformers.includes('response-template');
  const templated = (s: string, p: string) =>
    templating
      ? translateTemplate(s, { dialect: 'wiremock', pointer: p, warnings, params: where.params })
      : verbatim(s);
  for (const k of Object.keys(headers)) headers[k] = templated(headers[k], `${at}/response/headers${pointerOf(k)}`);
  const step = stepOf({
    statusCode: Number.isInteger(res.status) ? (res.status as number) : 200,
    body: templated(body, `${at}/response`),
    headers: { 'content-type': type, ...headers },
    ...delayOf(res, `${at}/response`, warnings),
  });
  if (typeof res.fault === 'string') {
    const f = FAULTS[res.fault];
    if (f) step.fault = f;
    else warnings.push({ pointer: `${at}/response/fault`, message: `fault ${res.fault} is not translated` });
    if (res.fault === 'RANDOM_DATA_THEN_CLOSE')
      warnings.push({ pointer: `${at}/response/fault`, message: 'RANDOM_DATA_THEN_CLOSE became malformed_body' });
  }

  const method = typeof req.method === 'string' ? req.method.toUpperCase() : 'ANY';
  const methods = method === 'ANY' ? ANY_METHODS : [method];
  if (method === 'ANY')
    warnings.push({
      pointer: `${at}/request/method`,
      message: `ANY became one endpoint per method: ${ANY_METHODS.join(', ')}`,
    });
  const label = typeof stub.name === 'string' ? stub.name : `${method} ${where.pattern}`;
  for (const m of methods) {
    const ep = book.endpoint(m, where.pattern, at);
    if (!ep) continue;
    book.addRule(ep, {
      name: label,
      priority: Number.isInteger(stub.priority) ? (stub.priority as number) : 5,
      active,
      conditions,
      response: { mode: 'loop', steps: [step] },
      actions,
      pointer: at,
    });
  }
}

/** A WireMock document → drafts (call `isWireMock` first). */
export function convertWireMock(doc: Json): Converted {
  const out = emptyConverted('wiremock');
  const stubs: [Json, string][] = Array.isArray(doc.mappings)
    ? (doc.mappings as Json[]).map((m, i) => [m, `/mappings/${i}`])
    : [[doc, '']];
  // WireMock tries stubs by priority, then the one added last first
  const ordered = stubs
    .map((s, i) => ({ s, i, p: Number.isInteger(s[0].priority) ? (s[0].priority as number) : 5 }))
    .sort((a, b) => a.p - b.p || b.i - a.i);
  const book = new RouteBook(out);
  for (const { s } of ordered) addStub(book, s[0], s[1], out);
  book.finish();
  return out;
}
