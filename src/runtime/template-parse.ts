/**
 * Template text → literal parts and expression trees (template.ts compiles them). The syntax is
 * described in template.ts.
 */

export type Node =
  | { readonly kind: 'lit'; readonly value: string }
  | { readonly kind: 'path'; readonly segs: readonly string[] }
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Node[] }
  /** a JSON object or array literal, as an argument of `faker` */
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'invalid' };

export type Part = string | Node;

const INVALID: Node = { kind: 'invalid' };
export const INT_RE = /^-?[0-9]{1,15}$/;
const HELPERS = new Set(['json', 'default', '$uuid', '$timestamp', '$isoDate', '$randomInt', 'faker']);
/** Helpers that may appear bare as an argument (`json $uuid`). */
const NULLARY = new Set(['$uuid', '$timestamp', '$isoDate']);

/** Splits template text into literal strings and expression nodes. */
export function parseTemplate(src: string): Part[] {
  const parts: Part[] = [];
  let lit = '';
  let pos = 0;
  while (pos < src.length) {
    const close = src.indexOf('}}', pos);
    if (close < 0) break;
    const open = close - 2 >= pos ? src.lastIndexOf('{{', close - 2) : -1;
    if (open < pos) {
      // a `}}` with no `{{` before it: literal
      lit += src.slice(pos, close + 2);
      pos = close + 2;
      continue;
    }
    lit += src.slice(pos, open);
    if (lit !== '') parts.push(lit);
    lit = '';
    // a JSON object argument ends in `}` right before the closing braces: `{{faker "x" {"a":1}}}`
    let end = close;
    while (src[end + 2] === '}' && unclosedBraces(src.slice(open + 2, end)) > 0) end++;
    parts.push(parseExpression(src.slice(open + 2, end)));
    pos = end + 2;
  }
  lit += src.slice(pos);
  if (lit !== '') parts.push(lit);
  return parts;
}

/** `{` not yet closed by `}` in expression text, outside string literals. */
function unclosedBraces(s: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
  }
  return depth;
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

type Token =
  | { readonly t: 'json'; readonly v: unknown }
  | { readonly t: 'word'; readonly v: string }
  | { readonly t: 'str'; readonly v: string }
  | { readonly t: '(' }
  | { readonly t: ')' };

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
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
    } else if (ch === '{' || ch === '[') {
      const end = jsonEnd(s, i);
      if (end < 0) return null;
      try {
        out.push({ t: 'json', v: JSON.parse(s.slice(i, end)) });
      } catch {
        return null;
      }
      i = end;
    } else if (ch === '"') {
      let v = '';
      i++;
      for (;;) {
        if (i >= s.length) return null; // unterminated string literal
        const c = s[i];
        if (c === '"') break;
        if (c === '\\' && (s[i + 1] === '"' || s[i + 1] === '\\')) {
          v += s[i + 1];
          i += 2;
        } else {
          v += c;
          i++;
        }
      }
      i++;
      out.push({ t: 'str', v });
    } else {
      const start = i;
      while (i < s.length && !isSpace(s[i]) && s[i] !== '"' && s[i] !== '(' && s[i] !== ')') i++;
      out.push({ t: 'word', v: s.slice(start, i) });
    }
  }
  return out;
}

function parseExpression(text: string): Node {
  const tokens = tokenize(text);
  if (tokens === null) return INVALID;
  const state = { i: 0 };
  const node = parseSequence(tokens, state);
  return state.i === tokens.length ? node : INVALID;
}

/** Parses items up to a `)` or the end: a helper call, or a single value. */
function parseSequence(tokens: readonly Token[], state: { i: number }): Node {
  const items: Node[] = [];
  let head: string | null = null;
  while (state.i < tokens.length) {
    const tok = tokens[state.i];
    if (tok.t === ')') break;
    state.i++;
    if (tok.t === '(') {
      items.push(parseSequence(tokens, state));
      if (tokens[state.i]?.t !== ')') return INVALID;
      state.i++;
    } else if (tok.t === 'str') {
      items.push({ kind: 'lit', value: tok.v });
    } else if (tok.t === 'json') {
      items.push({ kind: 'json', value: tok.v });
    } else if (items.length === 0 && HELPERS.has(tok.v)) {
      head = tok.v;
      items.push(INVALID); // placeholder for the head
    } else {
      items.push(atom(tok.v));
    }
  }
  if (head !== null) return { kind: 'call', name: head, args: items.slice(1) };
  return items.length === 1 ? items[0] : INVALID;
}

function atom(word: string): Node {
  if (NULLARY.has(word)) return { kind: 'call', name: word, args: [] };
  if (INT_RE.test(word)) return { kind: 'lit', value: String(Number(word)) };
  return { kind: 'path', segs: word.split('.') };
}
