/**
 * A Postman collection v2.0/v2.1 → endpoints (docs/interop.md). Every request with saved example
 * responses is an endpoint on its method and path (`:id` and `{{id}}` segments are parameters). Each
 * example whose original request names a concrete path or query becomes a rule matching them; with
 * several examples, `x-mock-response-name` / `x-mock-response-code` pick one as on Postman's mock
 * servers; the first 2xx example (else the first) is the endpoint's answer.
 */
import type { Condition, Step } from '../domain/model.js';
import { cond, quoteRegex } from './matchers.js';
import { patternOf, RouteBook } from './route-book.js';
import { verbatim } from './templates.js';
import {
  CAPTURE_DROPPED_HEADERS,
  type Converted,
  type DraftEndpoint,
  emptyConverted,
  isObject,
  type Json,
  sniffContentType,
  stepOf,
  takeContentType,
} from './types.js';

export function isPostman(doc: unknown): boolean {
  if (!isObject(doc) || !isObject(doc.info) || !Array.isArray(doc.item)) return false;
  const schema = doc.info.schema;
  return typeof schema === 'string' ? schema.includes('getpostman.com') : doc.info._postman_id !== undefined;
}

const PREVIEW_TYPES: Record<string, string> = {
  json: 'application/json',
  html: 'text/html',
  xml: 'application/xml',
  text: 'text/plain',
  javascript: 'application/javascript',
};
/** Postman's dynamic variables with a Mockyard equivalent. */
const DYNAMIC: Record<string, string> = {
  $guid: '$uuid',
  $randomUUID: '$uuid',
  $isoTimestamp: '$isoDate',
  $randomInt: 'faker "number.int" {"min":0,"max":1000}',
  $randomFirstName: 'faker "person.firstName"',
  $randomLastName: 'faker "person.lastName"',
  $randomFullName: 'faker "person.fullName"',
  $randomEmail: 'faker "internet.email"',
  $randomUserName: 'faker "internet.username"',
  $randomCity: 'faker "location.city"',
  $randomCountry: 'faker "location.country"',
  $randomPhoneNumber: 'faker "phone.number"',
  $randomBoolean: 'faker "datatype.boolean"',
  $randomWord: 'faker "lorem.word"',
  $randomLoremSentence: 'faker "lorem.sentence"',
  $randomCompanyName: 'faker "company.name"',
  $randomUrl: 'faker "internet.url"',
  $randomPrice: 'faker "commerce.price"',
};

interface Url {
  path: string;
  query: [string, string][];
}

function urlOf(raw: unknown, vars: Map<string, string>): Url | null {
  let segs: string[];
  let query: [string, string][] = [];
  if (typeof raw === 'string') {
    const text = raw.replace(/^\{\{[^}]+\}\}/, '').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
    const [p, q = ''] = text.split('?', 2);
    segs = p.split('/');
    query = [...new URLSearchParams(q.split('#')[0])];
  } else if (isObject(raw)) {
    if (Array.isArray(raw.path)) segs = raw.path.map((s) => (isObject(s) ? String(s.value ?? '') : String(s)));
    else if (typeof raw.path === 'string') segs = raw.path.split('/');
    else if (typeof raw.raw === 'string') return urlOf(raw.raw, vars);
    else segs = [];
    if (Array.isArray(raw.query))
      query = raw.query
        .filter((q) => isObject(q) && q.disabled !== true && typeof q.key === 'string')
        .map((q) => [String((q as Json).key), String((q as Json).value ?? '')]);
  } else return null;
  const path = segs
    .filter((s) => s !== '')
    .map((s) => {
      const v = /^\{\{([^{}]+)\}\}$/.exec(s);
      if (!v) return s;
      const known = vars.get(v[1]);
      return known !== undefined && !known.includes('/') ? known : `:${v[1]}`;
    })
    .join('/');
  return { path: `/${path}`, query };
}

/**
 * An example body: Postman's dynamic variables (`{{$guid}}`) become Mockyard helpers and the
 * collection's variables their values; the rest is served as written, `{{unknown}}` included, as
 * Postman's mock servers do.
 */
function template(text: string, vars: Map<string, string>): string {
  if (!text.includes('{{')) return text;
  let out = '';
  let from = 0;
  for (const m of text.matchAll(/\{\{\s*([^{}]+?)\s*\}\}/g)) {
    const name = m[1];
    const known = vars.get(name);
    const part = DYNAMIC[name] ? `{{${DYNAMIC[name]}}}` : verbatim(known ?? m[0]);
    out += verbatim(text.slice(from, m.index)) + part;
    from = m.index + m[0].length;
  }
  return out + verbatim(text.slice(from));
}

function headersOf(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof raw === 'string') {
    for (const line of raw.split(/\r?\n/)) {
      const i = line.indexOf(':');
      if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
    }
  } else if (Array.isArray(raw)) {
    for (const h of raw)
      if (isObject(h) && typeof h.key === 'string' && h.disabled !== true) out[h.key] = String(h.value ?? '');
  }
  for (const k of Object.keys(out)) if (CAPTURE_DROPPED_HEADERS.has(k.toLowerCase())) delete out[k];
  return out;
}

function addItem(item: Json, at: string, book: RouteBook, vars: Map<string, string>, out: Converted): void {
  const request = typeof item.request === 'string' ? { url: item.request, method: 'GET' } : item.request;
  if (!isObject(request)) return;
  const method = typeof request.method === 'string' ? request.method.toUpperCase() : 'GET';
  const url = urlOf(request.url, vars);
  const examples = Array.isArray(item.response) ? item.response.filter(isObject) : [];
  if (!url) {
    out.warnings.push({ pointer: `${at}/request/url`, message: 'a request without a URL is not imported' });
    return;
  }
  const pattern = patternOf(url.path);
  if (examples.length === 0) {
    out.skipped.push({ method, path: pattern, reason: 'the request has no saved example response' });
    out.warnings.push({ pointer: at, message: 'a request without saved examples has no answer to mock; not imported' });
    return;
  }
  const ep = book.endpoint(method, pattern, at);
  if (!ep) return;
  const steps = examples.map((ex, _i) => {
    const headers = headersOf(ex.header);
    const body = typeof ex.body === 'string' ? template(ex.body, vars) : '';
    const preview =
      typeof ex._postman_previewlanguage === 'string' ? PREVIEW_TYPES[ex._postman_previewlanguage] : undefined;
    const type = takeContentType(headers) ?? preview ?? sniffContentType(body);
    const code = Number(ex.code);
    return stepOf({
      statusCode: Number.isInteger(code) && code >= 100 && code <= 599 ? code : 200,
      body,
      headers: { 'content-type': type, ...headers },
    });
  });
  // a GraphQL request (docs/graphql.md): GraphQL APIs share one URL, so each request is a rule on it,
  // matched by its operation (`query Name` in the body) or, unnamed, by its whole query
  const body = isObject(request.body) ? request.body : null;
  if (body?.mode === 'graphql' && isObject(body.graphql) && typeof body.graphql.query === 'string') {
    const query = body.graphql.query;
    const op = /^\s*(query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/.exec(query);
    const preferred = Math.max(
      0,
      steps.findIndex((s) => s.statusCode >= 200 && s.statusCode < 300),
    );
    book.addRule(ep, {
      name: op ? `${op[1]} ${op[2]}` : exampleName(examples[preferred], preferred),
      conditions: [
        op ? cond('body', 'contains', undefined, `${op[1]} ${op[2]}`) : cond('body_json', 'equals', 'query', query),
      ],
      response: { mode: 'loop', steps: [steps[preferred]] },
      actions: [],
      pointer: `${at}/request/body/graphql`,
    });
    return;
  }
  // an example saved on another path than its request's (`/users/:id` vs `/customers`) answers on
  // its own path, as on Postman's mock servers, which match the examples' original requests
  const groups = new Map<string, number[]>();
  const originals = examples.map((ex) => (isObject(ex.originalRequest) ? urlOf(ex.originalRequest.url, vars) : null));
  originals.forEach((o, i) => {
    const own = o && !fits(patternOf(o.path), pattern) ? patternOf(o.path, { params: false }) : pattern;
    groups.set(own, [...(groups.get(own) ?? []), i]);
  });
  for (const [where, picked] of groups) {
    const target = where === pattern ? ep : book.endpoint(method, where, at);
    if (target) addExamples(book, target, where, picked, examples, steps, originals, at);
  }
}

/** Does a concrete path (as a pattern of literals) fall under a request's pattern? */
function fits(concrete: string, pattern: string): boolean {
  const c = concrete.split('/');
  const p = pattern.split('/');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '*' && i === p.length - 1) return c.length >= p.length;
    if (i >= c.length || (!p[i].startsWith(':') && p[i] !== c[i])) return false;
  }
  return c.length === p.length;
}

const exampleName = (ex: Json, i: number) =>
  typeof ex.name === 'string' && ex.name !== '' ? ex.name : `example ${i + 1}`;

/** The examples `picked` (indexes) on one endpoint: header picks first, then concrete paths and queries. */
function addExamples(
  book: RouteBook,
  ep: DraftEndpoint,
  pattern: string,
  picked: number[],
  examples: Json[],
  steps: Step[],
  originals: (Url | null)[],
  at: string,
): void {
  const rule = (name: string, conditions: Condition[], i: number) =>
    book.addRule(ep, {
      name,
      conditions,
      response: { mode: 'loop', steps: [steps[i]] },
      actions: [],
      pointer: `${at}/response/${i}`,
    });
  // `x-mock-response-name` / `-code` choose before anything else does
  if (picked.length > 1) {
    for (const i of picked)
      rule(
        `x-mock-response-name: ${exampleName(examples[i], i)}`,
        [cond('header', 'equals', 'x-mock-response-name', exampleName(examples[i], i))],
        i,
      );
    const byCode = new Map<number, number>();
    for (const i of picked) if (!byCode.has(steps[i].statusCode)) byCode.set(steps[i].statusCode, i);
    if (byCode.size > 1)
      for (const [code, i] of byCode)
        rule(`x-mock-response-code: ${code}`, [cond('header', 'equals', 'x-mock-response-code', String(code))], i);
  }
  // examples that name a concrete path or a query: matched by them
  for (const i of picked) {
    const original = originals[i];
    if (!original) continue;
    const conditions: Condition[] = original.query.map(([k, v]) => cond('query', 'equals', k, v));
    const concrete = patternOf(original.path);
    if (concrete !== pattern && !concrete.includes('/:'))
      conditions.push(cond('path', 'matches_regex', undefined, `^${quoteRegex(original.path.replace(/\/+$/, ''))}/?$`));
    if (conditions.length > 0) rule(exampleName(examples[i], i), conditions, i);
  }
  const preferred = picked.find((i) => steps[i].statusCode >= 200 && steps[i].statusCode < 300) ?? picked[0];
  const d = steps[preferred];
  const extra = Object.keys(d.headers).filter((k) => k !== 'content-type');
  if (extra.length === 0)
    book.setDefault(ep, { statusCode: d.statusCode, body: d.body, contentType: d.headers['content-type'] });
  else rule(exampleName(examples[preferred], preferred), [], preferred);
}

function walk(items: unknown[], at: string, book: RouteBook, vars: Map<string, string>, out: Converted): void {
  items.forEach((item, i) => {
    if (!isObject(item)) return;
    const p = `${at}/${i}`;
    if (Array.isArray(item.item)) walk(item.item, `${p}/item`, book, vars, out);
    else addItem(item, p, book, vars, out);
  });
}

/** A Postman collection → drafts (call `isPostman` first). */
export function convertPostman(doc: Json): Converted {
  const out = emptyConverted('postman');
  const info = doc.info as Json;
  if (typeof info.name === 'string' && info.name.trim() !== '') out.name = info.name;
  const vars = new Map<string, string>();
  for (const v of Array.isArray(doc.variable) ? doc.variable : [])
    if (isObject(v) && typeof v.key === 'string' && v.value !== undefined && !/^https?:\/\//.test(String(v.value)))
      vars.set(v.key, String(v.value));
  const book = new RouteBook(out);
  walk(doc.item as unknown[], '/item', book, vars, out);
  book.finish();
  return out;
}
