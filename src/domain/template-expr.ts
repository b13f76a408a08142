/**
 * One template expression (the inside of `{{ … }}`, docs/templates.md): a helper call
 * `name arg… key=value…`, a value path, or a literal. Arguments are paths (`request.query.q`, `this`,
 * `../x`, `@index`, `@root.x`, `a.[odd key]`), strings in double or single quotes (or `\"…\"`, as
 * written inside a JSON string), numbers, `true` / `false` / `null`, JSON object or array literals
 * (`{"min":1}`), and subexpressions `(helper …)`.
 */

export type Expr =
  | { readonly k: 'lit'; readonly v: string | number | boolean | null | undefined }
  | { readonly k: 'json'; readonly v: unknown }
  | {
      readonly k: 'path';
      readonly segs: readonly string[];
      /** `../` count */
      readonly up: number;
      /** `@index`, `@root.x` */
      readonly data: boolean;
      /** starts with `this` or `.`: never a helper, never a root name */
      readonly self: boolean;
    }
  | {
      readonly k: 'call';
      readonly name: string;
      readonly args: readonly Expr[];
      readonly hash: readonly (readonly [string, Expr])[];
    };

type Token =
  | { readonly t: 'json'; readonly v: unknown }
  | { readonly t: 'word'; readonly v: string }
  | { readonly t: 'str'; readonly v: string }
  | { readonly t: 'key'; readonly v: string }
  | { readonly t: '(' }
  | { readonly t: ')' };

const NUMBER_RE = /^-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const KEY_RE = /^[A-Za-z_$][\w$-]*$/;

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
}

/** The end (exclusive) of the JSON literal that opens at `start`, or -1 when it does not close. */
function jsonEnd(s: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** A quoted string from `i` (at its opening quote): [value, index after it], or null when unterminated. */
function readString(s: string, i: number): [string, number] | null {
  const escaped = s[i] === '\\';
  const quote = escaped ? '"' : s[i];
  let j = escaped ? i + 2 : i + 1;
  let v = '';
  for (;;) {
    if (j >= s.length) return null;
    const c = s[j];
    if (escaped ? c === '\\' && s[j + 1] === '"' : c === quote) break;
    if (c === '\\' && (s[j + 1] === quote || s[j + 1] === '\\')) {
      v += s[j + 1];
      j += 2;
    } else {
      v += c;
      j++;
    }
  }
  return [v, escaped ? j + 2 : j + 1];
}

function tokenize(s: string): Token[] | null {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const ch = s[i];
    if (isSpace(ch)) {
      i++;
    } else if (ch === '(' || ch === ')') {
      out.push({ t: ch });
      i++;
    } else if (ch === '{' || (ch === '[' && out.length > 0 && !/[\w\]]/.test(s[i - 1] ?? ''))) {
      const end = jsonEnd(s, i);
      if (end < 0) return null;
      try {
        out.push({ t: 'json', v: JSON.parse(s.slice(i, end)) });
      } catch {
        return null;
      }
      i = end;
    } else if (ch === '"' || ch === "'" || (ch === '\\' && s[i + 1] === '"')) {
      const str = readString(s, i);
      if (str === null) return null;
      out.push({ t: 'str', v: str[0] });
      i = str[1];
    } else {
      const start = i;
      let bracket = false;
      while (i < s.length) {
        const c = s[i];
        if (bracket) {
          if (c === ']') bracket = false;
        } else if (c === '[') bracket = true;
        else if (isSpace(c) || c === '"' || c === "'" || c === '(' || c === ')') break;
        else if (c === '=' && KEY_RE.test(s.slice(start, i))) break;
        i++;
      }
      if (bracket) return null;
      if (s[i] === '=') {
        out.push({ t: 'key', v: s.slice(start, i) });
        i++;
      } else out.push({ t: 'word', v: s.slice(start, i) });
    }
  }
  return out;
}

/** Parses the inside of a mustache; null when it does not tokenize or nest. */
export function parseExpr(text: string): Expr | null {
  const tokens = tokenize(text);
  if (tokens === null || tokens.length === 0) return null;
  const state = { i: 0 };
  const e = parseSequence(tokens, state);
  return e !== null && state.i === tokens.length ? e : null;
}

/** Items up to a `)` or the end: a helper call, or a single value. */
function parseSequence(tokens: readonly Token[], state: { i: number }): Expr | null {
  const items: Expr[] = [];
  const hash: [string, Expr][] = [];
  let headWord: string | null = null;
  while (state.i < tokens.length) {
    const tok = tokens[state.i];
    if (tok.t === ')') break;
    state.i++;
    if (tok.t === 'key') {
      const value = parseItem(tokens, state);
      if (value === null) return null;
      hash.push([tok.v, value]);
      continue;
    }
    if (hash.length > 0) return null; // positional arguments come before hash arguments
    if (items.length === 0 && tok.t === 'word') headWord = tok.v;
    state.i--;
    const item = parseItem(tokens, state);
    if (item === null) return null;
    items.push(item);
  }
  if (items.length === 0) return null;
  if (items.length === 1 && hash.length === 0) return items[0];
  const head = items[0];
  if (headWord === null || head.k !== 'path' || head.segs.length !== 1 || head.up > 0 || head.data) return null;
  return { k: 'call', name: head.segs[0], args: items.slice(1), hash };
}

function parseItem(tokens: readonly Token[], state: { i: number }): Expr | null {
  const tok = tokens[state.i++];
  if (tok === undefined) return null;
  switch (tok.t) {
    case '(': {
      const inner = parseSequence(tokens, state);
      if (inner === null || tokens[state.i]?.t !== ')') return null;
      state.i++;
      return inner;
    }
    case 'str':
      return { k: 'lit', v: tok.v };
    case 'json':
      return { k: 'json', v: tok.v };
    case 'word':
      return atom(tok.v);
    default:
      return null;
  }
}

function atom(word: string): Expr | null {
  if (NUMBER_RE.test(word)) return { k: 'lit', v: Number(word) };
  if (word === 'true') return { k: 'lit', v: true };
  if (word === 'false') return { k: 'lit', v: false };
  if (word === 'null') return { k: 'lit', v: null };
  if (word === 'undefined') return { k: 'lit', v: undefined };
  let rest = word;
  let up = 0;
  while (rest.startsWith('../')) {
    up++;
    rest = rest.slice(3);
  }
  const data = rest.startsWith('@');
  if (data) rest = rest.slice(1);
  let self = false;
  if (rest === 'this' || rest === '.') return { k: 'path', segs: [], up, data, self: true };
  if (rest.startsWith('this.') || rest.startsWith('this/')) {
    self = true;
    rest = rest.slice(5);
  } else if (rest.startsWith('./')) {
    self = true;
    rest = rest.slice(2);
  }
  const segs = splitPath(rest);
  return segs === null ? null : { k: 'path', segs, up, data, self };
}

/** `a.b/c.[d.e]` → ['a', 'b', 'c', 'd.e']. */
function splitPath(s: string): string[] | null {
  const out: string[] = [];
  let seg = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '[' && seg === '') {
      const end = s.indexOf(']', i);
      if (end < 0) return null;
      out.push(s.slice(i + 1, end));
      i = end;
      if (s[i + 1] === '.' || s[i + 1] === '/') i++;
      continue;
    }
    if (c === '.' || c === '/') {
      out.push(seg);
      seg = '';
    } else seg += c;
  }
  if (seg !== '' || out.length === 0 || s.endsWith('.') || s.endsWith('/')) out.push(seg);
  return out;
}
