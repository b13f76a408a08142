/**
 * WireMock's and Mockoon's Handlebars templates → Mockyard templates (docs/templates.md "Coming from
 * Mockoon or WireMock"). Mockyard speaks Handlebars with their helper names, so most of a template
 * stays as written; the helpers whose meaning differs are rewritten (`{{request.path.[1]}}` → the
 * route's parameter, WireMock's exclusive `randomInt upper`, WireMock's `date` → `dateFormat`), and a
 * helper with no equivalent is left as written with a warning (it renders as the empty string).
 */
import { parseExpr } from '../domain/template-expr.js';
import { HELPERS } from '../runtime/templates/helpers.js';
import { MOCKOON_NAMES, WIREMOCK_NAMES } from '../runtime/templates/peer-names.js';
import type { ImportWarning } from './types.js';

/** The peers' names that have no equivalent here: a single word of one of them warns. */
const UNSUPPORTED = new Set(
  [...MOCKOON_NAMES, ...WIREMOCK_NAMES].filter((p) => p.mockyard === null).map((p) => p.name),
);
const BLOCKS = new Set(['if', 'unless', 'each', 'with', 'repeat', 'switch', 'case', 'default', 'assign']);

/** True when Mockyard renders the tag as the peer would: every helper it calls is one of Mockyard's. */
function native(tag: string): boolean {
  const sigil = /^(?:[#^]|else\b)/.exec(tag);
  const body = tag.replace(/^(?:[#^/]|else\b)\s*/, '');
  if (tag.startsWith('/')) return BLOCKS.has(body.trim()) || !UNSUPPORTED.has(body.trim());
  if (body.trim() === '') return sigil !== null;
  const e = parseExpr(body);
  if (e === null) return false;
  let ok = true;
  const visit = (x: NonNullable<ReturnType<typeof parseExpr>>, head: boolean): void => {
    if (x.k === 'call') {
      if (!HELPERS.has(x.name) && !(head && BLOCKS.has(x.name))) ok = false;
      for (const a of x.args) visit(a, false);
      for (const [, h] of x.hash) visit(h, false);
    } else if (x.k === 'path' && x.segs.length === 1 && !x.self && !x.data && UNSUPPORTED.has(x.segs[0])) ok = false;
  };
  visit(e, sigil !== null);
  return ok;
}

export type Dialect = 'wiremock' | 'mockoon';

interface Token {
  key?: string;
  value: string;
  quoted: boolean;
}

/** `jsonPath request.body '$.a[0].b' default='x'` → tokens. */
function tokenize(expr: string): Token[] {
  const out: Token[] = [];
  const re = /\s*(?:([A-Za-z_][\w-]*)=)?(?:'([^']*)'|"([^"]*)"|([^\s'"]+))/g;
  for (let m = re.exec(expr); m !== null && m[0] !== ''; m = re.exec(expr)) {
    const quoted = m[2] !== undefined || m[3] !== undefined;
    out.push({ key: m[1], value: m[2] ?? m[3] ?? m[4] ?? '', quoted });
  }
  return out;
}

/** `$.a.b[0]['c d']` → `a.b.0.c d` (null when the JSON path uses filters or wildcards). */
export function jsonPathToDots(path: string): string | null {
  let p = path.trim();
  if (p.startsWith('$')) p = p.slice(1);
  if (/[*?()]|\.\./.test(p)) return null;
  const parts: string[] = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/g;
  let at = 0;
  for (let m = re.exec(p); m !== null; m = re.exec(p)) {
    if (m.index !== at) return null;
    parts.push(m[1] ?? m[2] ?? m[3] ?? m[4] ?? '');
    at = re.lastIndex;
  }
  if (at !== p.length) return null;
  return parts.join('.');
}

const RANDOM_TYPES: Record<string, string> = {
  ALPHANUMERIC: 'string.alphanumeric',
  ALPHABETIC: 'string.alpha',
  NUMERIC: 'string.numeric',
  HEXADECIMAL: 'string.hexadecimal',
  ALPHANUMERIC_AND_SYMBOLS: 'string.sample',
};

export interface TemplateContext {
  dialect: Dialect;
  pointer: string;
  warnings: ImportWarning[];
  /** the route's parameter names by path segment index (WireMock's `request.path.[1]`) */
  params?: (string | null)[];
}

const arg = (tokens: Token[], key: string) => tokens.find((t) => t.key === key)?.value;
const plain = (tokens: Token[]) => tokens.filter((t) => t.key === undefined);

function wiremockExpr(tokens: Token[], ctx: TemplateContext): string | null {
  const [head, ...rest] = tokens;
  const name = head.value;
  const m = /^request\.(\w+)(?:\.(?:\[([^\]]*)\]|([^.[\]]+)))?(?:\.\[(\d+)\])?$/.exec(name);
  if (m && tokens.length === 1) {
    const [, part, bracket, dotted] = m;
    const sub = bracket ?? dotted;
    switch (part) {
      case 'method':
      case 'body':
        return sub === undefined ? `request.${part}` : null;
      case 'url':
      case 'path':
      case 'pathSegments':
        if (sub === undefined) return 'request.path';
        if (/^\d+$/.test(sub)) {
          const p = ctx.params?.[Number(sub)];
          return p ? `request.params.${p}` : `request.path.[${sub}]`;
        }
        return `request.params.${sub}`;
      case 'query':
        return sub !== undefined ? `request.query.${sub}` : null;
      case 'headers':
      case 'header':
        return sub !== undefined ? `request.headers.${sub.toLowerCase()}` : null;
      default:
        return null;
    }
  }
  if (name === 'jsonPath' && rest[0]?.value === 'request.body' && rest[1]?.quoted) {
    const dots = jsonPathToDots(rest[1].value);
    if (dots === null) return null;
    return dots === '' ? 'request.body' : `request.body.${dots}`;
  }
  if (name === 'randomValue') {
    const type = (arg(rest, 'type') ?? 'ALPHANUMERIC').toUpperCase();
    if (type === 'UUID') return '$uuid';
    const fn = RANDOM_TYPES[type];
    const length = Number(arg(rest, 'length') ?? 36);
    if (!fn || !Number.isInteger(length) || length < 1 || length > 10_000) return null;
    return type === 'HEXADECIMAL'
      ? `faker "${fn}" ${JSON.stringify({ length, prefix: '' })}`
      : `faker "${fn}" ${length}`;
  }
  if (name === 'randomInt') {
    const min = Number(arg(rest, 'lower') ?? 0);
    const max = Number(arg(rest, 'upper') ?? 2147483647);
    if (!Number.isFinite(min) || !Number.isFinite(max)) return null;
    return `faker "number.int" ${JSON.stringify({ min, max: max - 1 })}`;
  }
  return null;
}

const HASH_TAIL = /((?:\s+[A-Za-z_]\w*=(?:'[^']*'|"[^"]*"|[^\s'"()]+))*)\s*$/;

/** WireMock's `date X offset='…' format='…'` formats a date (Mockoon's date, which Mockyard's is, makes a random one). */
function wiremockDate(expr: string): string | null {
  const m = /^date\s+/.exec(expr);
  if (!m) return null;
  const body = expr.slice(m[0].length);
  const tail = HASH_TAIL.exec(body);
  const date = body.slice(0, tail?.index ?? body.length).trim();
  if (date === '') return null;
  const hash = tokenize(tail?.[1] ?? '');
  const offset = arg(hash, 'offset');
  const format = arg(hash, 'format');
  const shifted = offset === undefined ? date : `(dateAdd ${date} ${JSON.stringify(offset)})`;
  return `dateFormat ${shifted}${format === undefined ? '' : ` ${JSON.stringify(format)}`}`;
}

function mockoonExpr(tokens: Token[]): string | null {
  const [head, ...rest] = tokens;
  const args = plain(rest);
  const first = args[0]?.value;
  // a default argument (`{{queryParam 'q' 'none'}}`): Mockyard's helper of that name takes it as written
  if (args.length > 1 && ['urlParam', 'queryParam', 'header', 'body', 'bodyRaw', 'cookie'].includes(head.value))
    return null;
  switch (head.value) {
    case 'urlParam':
      return first ? `request.params.${first}` : null;
    case 'queryParam':
      return first && !first.includes('.') ? `request.query.${first}` : null;
    case 'header':
      return first ? `request.headers.${first.toLowerCase()}` : null;
    case 'body':
      if (!first) return 'request.body';
      return /^[\w.-]+$/.test(first) ? `request.body.${first}` : null;
    case 'bodyRaw':
      return first ? null : 'request.body';
    case 'method':
      return 'request.method';
    case 'urlParams':
      return null;
    case 'uuid':
    case 'guid':
      return '$uuid';
    case 'now':
      return first === undefined ? '$isoDate' : null;
    case 'int': {
      const min = Number(args[0]?.value ?? 0);
      const max = Number(args[1]?.value ?? 100);
      return Number.isFinite(min) && Number.isFinite(max) ? `faker "number.int" ${JSON.stringify({ min, max })}` : null;
    }
    case 'faker': {
      if (!first) return null;
      const method = first.startsWith('name.') ? `person.${first.slice(5)}` : first;
      const extra = args.slice(1).map((t) => (t.quoted ? JSON.stringify(t.value) : t.value));
      return [`faker ${JSON.stringify(method)}`, ...extra].join(' ');
    }
    default:
      return null;
  }
}

/**
 * `text` with every `{{…}}` / `{{{…}}}` the dialect's helpers can say in Mockyard's words; the
 * others stay as written, each with a warning at `ctx.pointer`.
 */
/** Text served as written: every `{{` escaped (`\\{{`), so that nothing in it is rendered. */
export function verbatim(text: string): string {
  return text.includes('{{') ? text.replace(/\\?\{\{/g, (m) => (m.length === 3 ? m : '\\{{')) : text;
}

export function translateTemplate(text: string, ctx: TemplateContext): string {
  if (!text.includes('{{')) return text;
  const untranslated = new Set<string>();
  const out = text.replace(/\{\{\{?\s*([^{}]*?)\s*\}?\}\}/g, (whole, expr: string) => {
    const tokens = tokenize(expr);
    if (/^!/.test(expr)) return whole;
    if (tokens.length === 0 || /^[#/^>]|^else\b/.test(expr)) {
      if (native(expr)) return whole;
      untranslated.add(whole);
      return whole;
    }
    const mapped = ctx.dialect === 'wiremock' ? (wiremockDate(expr) ?? wiremockExpr(tokens, ctx)) : mockoonExpr(tokens);
    if (mapped === null && native(expr)) return whole;
    if (mapped === null) {
      untranslated.add(whole);
      return whole;
    }
    return `{{${mapped}}}`;
  });
  for (const t of untranslated) {
    ctx.warnings.push({
      pointer: ctx.pointer,
      message: `template ${t.length > 80 ? `${t.slice(0, 80)}…` : t} has no Mockyard equivalent; it renders as ""`,
    });
  }
  return out;
}
