/**
 * A mock request against its contract operation (docs/contract.md): parameters of every location
 * read by their style, the body by its media type, and the presence of credentials.
 */
import type { Violation } from '../../domain/contract.js';
import type { RequestView } from '../types.js';
import type { MediaCheck, Operation, ParamCheck, SecurityScheme } from './compile.js';
import { violationsOf } from './schema.js';

const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** Text as the value a schema type expects (left as text when it is not one: the schema then says so). */
export function typed(text: string, type: string | undefined): unknown {
  if ((type === 'integer' || type === 'number') && NUMBER.test(text)) return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  if (type === 'null' && text === '') return null;
  return text;
}

const SEPARATORS: Record<string, string> = {
  simple: ',',
  form: ',',
  spaceDelimited: ' ',
  pipeDelimited: '|',
  label: '.',
  matrix: ',',
};

/** The values of a parameter as its schema reads them: lists split by style, items typed. */
function paramValue(p: ParamCheck, raw: string[]): unknown {
  if (p.type === 'array') {
    const parts = p.explode && p.style === 'form' ? raw : raw.flatMap((r) => r.split(SEPARATORS[p.style] ?? ','));
    return parts.filter((x) => x !== '' || parts.length > 1).map((x) => typed(x, p.itemType));
  }
  if (p.type === 'object') {
    if (raw.length === 0) return {};
    // simple/form, not exploded: k,v,k,v
    const parts = raw[0].split(',');
    const out: Record<string, string> = {};
    for (let i = 0; i + 1 < parts.length; i += 2) out[parts[i]] = parts[i + 1];
    return out;
  }
  return typed(raw[0], p.type);
}

export function cookiesOf(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

function queryValues(rawQuery: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, v] of new URLSearchParams(rawQuery)) {
    const list = out.get(k);
    if (list) list.push(v);
    else out.set(k, [v]);
  }
  return out;
}

function paramViolations(p: ParamCheck, raw: string[] | undefined): Violation[] {
  const place = p.in;
  if (raw === undefined || raw.length === 0) {
    return p.required
      ? [{ in: place, name: p.name, message: `required ${place} parameter ${p.name} is missing`, keyword: 'required' }]
      : [];
  }
  if (!p.check) return [];
  const errors = p.check(paramValue(p, raw));
  return errors
    ? violationsOf(errors, place, p.name).map((v) => ({ ...v, message: `${place} parameter ${p.name} ${v.message}` }))
    : [];
}

/** The request's media type, lower case without parameters ('' when none). */
export const mediaType = (contentType: string | undefined) => (contentType ?? '').split(';')[0].trim().toLowerCase();

/** The media entry a content type picks: exact, then `type/*`, then `*\/*`. */
export function pickMedia(list: readonly MediaCheck[], type: string): MediaCheck | null {
  return (
    list.find((m) => m.type === type) ??
    list.find((m) => m.type.endsWith('/*') && type.startsWith(m.type.slice(0, -1))) ??
    list.find((m) => m.type === '*/*') ??
    (type.endsWith('+json') ? (list.find((m) => m.type === 'application/json') ?? null) : null)
  );
}

function formValue(body: string, m: MediaCheck): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    const f = m.fields[k];
    const value = typed(v, f?.type === 'array' ? f.itemType : f?.type);
    if (f?.type === 'array') {
      const list = (out[k] as unknown[] | undefined) ?? [];
      list.push(value);
      out[k] = list;
    } else out[k] = value;
  }
  return out;
}

function bodyViolations(op: ReturnType<Operation['checks']>, req: RequestView): Violation[] {
  const present = req.body.length > 0;
  const type = mediaType(req.header('content-type'));
  if (!op.body) return present ? [{ in: 'body', message: 'this operation takes no request body' }] : [];
  if (!present)
    return op.body.required ? [{ in: 'body', message: 'the request body is required', keyword: 'required' }] : [];
  const m = pickMedia(op.body.media, type);
  if (!m) {
    const allowed = op.body.media.map((x) => x.type).join(', ');
    return [
      { in: 'header', name: 'content-type', message: `content type ${type || '(none)'} is not one of ${allowed}` },
    ];
  }
  if (!m.check) return [];
  let value: unknown;
  if (type === 'application/x-www-form-urlencoded') value = formValue(req.body, m);
  else if (type === 'application/json' || type.endsWith('+json') || m.type.includes('json')) {
    try {
      value = JSON.parse(req.body);
    } catch {
      return [{ in: 'body', pointer: '', message: 'the body is not valid JSON' }];
    }
  } else return [];
  const errors = m.check(value);
  return errors ? violationsOf(errors, 'body') : [];
}

function hasCredential(
  s: SecurityScheme,
  req: RequestView,
  cookies: () => Map<string, string>,
  query: () => Map<string, string[]>,
): boolean {
  const auth = req.header('authorization') ?? '';
  switch (s.kind) {
    case 'apiKey':
      if (!s.name) return false;
      if (s.in === 'header') return req.header(s.name.toLowerCase()) !== undefined;
      if (s.in === 'query') return query().has(s.name);
      if (s.in === 'cookie') return cookies().has(s.name);
      return false;
    case 'http':
      return s.scheme ? auth.toLowerCase().startsWith(`${s.scheme} `) : auth !== '';
    case 'oauth2':
    case 'openIdConnect':
      return /^bearer\s+\S/i.test(auth);
    default:
      return true;
  }
}

/** Everything about the request the operation does not allow (empty when it conforms). */
export function requestViolations(op: Operation, pathParams: Record<string, string>, req: RequestView): Violation[] {
  const checks = op.checks();
  const out: Violation[] = [];
  let query: Map<string, string[]> | null = null;
  let cookies: Map<string, string> | null = null;
  const q = () => (query ??= queryValues(req.rawQuery));
  const c = () => (cookies ??= cookiesOf(req.header('cookie')));
  for (const p of checks.params) {
    let raw: string[] | undefined;
    if (p.in === 'path') raw = Object.hasOwn(pathParams, p.name) ? [pathParams[p.name]] : undefined;
    else if (p.in === 'query') raw = q().get(p.name);
    else if (p.in === 'header') {
      const h = req.header(p.name.toLowerCase());
      raw = h === undefined ? undefined : [h];
    } else {
      const v = c().get(p.name);
      raw = v === undefined ? undefined : [v];
    }
    out.push(...paramViolations(p, raw));
  }
  out.push(...bodyViolations(checks, req));
  if (checks.security && checks.security.length > 0) {
    const ok = checks.security.some((all) => all.every((s) => hasCredential(s, req, c, q)));
    if (!ok) out.push({ in: 'security', message: 'the credentials this operation requires are missing' });
  }
  return out;
}
