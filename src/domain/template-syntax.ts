/**
 * Template text → a tree (docs/templates.md): Handlebars syntax — `{{expr}}`, `{{{expr}}}` (the same:
 * nothing is HTML-escaped), blocks `{{#name …}}…{{else}}…{{/name}}` with `{{else if …}}` chains and
 * `as |a b|` parameters, `{{^name}}` inverse sections, comments `{{! … }}` / `{{!-- … --}}`, whitespace
 * control `{{~ … ~}}`, and Handlebars' standalone rule (a block or comment tag alone on its line takes
 * the line with it). Expressions (template-expr.ts): helper calls, subexpressions, hash arguments,
 * literals.
 *
 * Scanning: a `}}` closes the nearest `{{` before it, so an unclosed `{{` and a stray `}}` are text.
 * `\{{x}}` is the text `{{x}}` (Handlebars' escape; `\\{{x}}` is a backslash and the tag).
 * A parse error is an unclosed block, a close without its open, an `{{else}}` outside a block, or a
 * block whose head does not read; it carries a 1-based line and column. An expression that does not
 * read (`{{ a + b }}`, an unterminated string) is no error: it renders ''.
 */
import type { ErrorDetail } from './errors.js';
import { type Expr, parseExpr } from './template-expr.js';

export type { Expr } from './template-expr.js';

export type TemplateNode =
  | { readonly k: 'text'; readonly v: string }
  | { readonly k: 'out'; readonly e: Expr }
  | {
      readonly k: 'block';
      readonly name: string;
      readonly args: readonly Expr[];
      readonly hash: readonly (readonly [string, Expr])[];
      /** `as |item index|` */
      readonly params: readonly string[];
      readonly body: readonly TemplateNode[];
      /** the `{{else}}` part (an `{{else if}}` is a nested block in it), null when none */
      readonly inverse: readonly TemplateNode[] | null;
    };

export interface TemplateProblem {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export type ParsedTemplate =
  | { readonly ok: true; readonly nodes: readonly TemplateNode[] }
  | { readonly ok: false; readonly problem: TemplateProblem };

type TagKind = 'out' | 'open' | 'inverse' | 'close' | 'else' | 'comment';

interface Tag {
  readonly kind: TagKind;
  /** expression text (after the sigil), for out/open/inverse/else; the name for close */
  readonly body: string;
  readonly at: number;
  readonly stripBefore: boolean;
  readonly stripAfter: boolean;
}

type Piece = { text: string } | Tag;

class SyntaxProblem extends Error {
  constructor(
    readonly at: number,
    message: string,
  ) {
    super(message);
  }
}

function position(src: string, at: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  for (let i = src.indexOf('\n'); i >= 0 && i < at; i = src.indexOf('\n', i + 1)) {
    line++;
    last = i;
  }
  return { line, column: at - last };
}

/** `{` not yet closed by `}` in expression text, outside string literals. */
function unclosedBraces(s: string): number {
  let depth = 0;
  let quote = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"') quote = c;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
  }
  return depth;
}

function tagOf(raw: string, at: number): Tag {
  let s = raw;
  let stripBefore = false;
  let stripAfter = false;
  if (s.startsWith('~')) {
    stripBefore = true;
    s = s.slice(1);
  }
  if (s.endsWith('~') && !s.endsWith('\\~')) {
    stripAfter = true;
    s = s.slice(0, -1);
  }
  const sigil = s[0];
  const tag = (kind: TagKind, body: string): Tag => ({ kind, body: body.trim(), at, stripBefore, stripAfter });
  if (sigil === '!') return tag('comment', '');
  if (sigil === '#') return tag('open', s.slice(1));
  if (sigil === '^') return s.trim() === '^' ? tag('else', '') : tag('inverse', s.slice(1));
  if (sigil === '/') return tag('close', s.slice(1));
  const trimmed = s.trim();
  if (trimmed === 'else' || trimmed.startsWith('else ')) return tag('else', trimmed.slice(4));
  return tag('out', s);
}

/** Splits the source into text and tags. */
function scan(src: string): Piece[] {
  const out: Piece[] = [];
  let text = '';
  let pos = 0;
  while (pos < src.length) {
    // comments first: `{{!-- … --}}` may hold `}}`
    const close = src.indexOf('}}', pos);
    if (close < 0) break;
    let open = close - 2 >= pos ? src.lastIndexOf('{{', close - 2) : -1;
    if (open < pos) {
      text += src.slice(pos, close + 2);
      pos = close + 2;
      continue;
    }
    const longComment = src.indexOf('{{!--', pos);
    if (longComment >= 0 && longComment < close) {
      const end = src.indexOf('--}}', longComment + 5);
      if (end < 0) throw new SyntaxProblem(longComment, 'a comment `{{!--` is never closed with `--}}`');
      text += src.slice(pos, longComment);
      out.push({ text });
      text = '';
      out.push({ kind: 'comment', body: '', at: longComment, stripBefore: false, stripAfter: false });
      pos = end + 4;
      continue;
    }
    if (open > pos && src[open - 1] === '\\') {
      if (src[open - 2] !== '\\') {
        // `\{{x}}` is the text `{{x}}`, as in Handlebars (a body that must not be rendered is kept so)
        text += src.slice(pos, open - 1) + src.slice(open, close + 2);
        pos = close + 2;
        continue;
      }
      // `\\{{x}}`: one backslash, then the tag
      text += src.slice(pos, open - 1);
      pos = open;
    }
    let end = close;
    let triple = false;
    if (open > pos && src[open - 1] === '{' && src[close + 2] === '}') {
      // `{{{expr}}}`: the same as `{{expr}}` here (nothing is escaped)
      open--;
      triple = true;
    } else {
      // a JSON object argument ends in `}` right before the closing braces: `{{faker "x" {"a":1}}}`
      while (src[end + 2] === '}' && unclosedBraces(src.slice(open + 2, end)) > 0) end++;
    }
    text += src.slice(pos, open);
    out.push({ text });
    text = '';
    out.push(tagOf(triple ? src.slice(open + 3, close) : src.slice(open + 2, end), open));
    pos = triple ? close + 3 : end + 2;
  }
  text += src.slice(pos);
  out.push({ text });
  return out;
}

const isTag = (p: Piece | undefined): p is Tag => p !== undefined && 'kind' in p;

/** `~` trimming and standalone lines (block, else and comment tags alone on their line). */
function trimWhitespace(pieces: Piece[]): void {
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i];
    if (!isTag(p)) continue;
    const before = pieces[i - 1] as { text: string } | undefined;
    const after = pieces[i + 1] as { text: string } | undefined;
    if (p.stripBefore && before && !isTag(before)) before.text = before.text.replace(/\s+$/, '');
    if (p.stripAfter && after && !isTag(after)) after.text = after.text.replace(/^\s+/, '');
    if (p.kind === 'out' || !before || !after || isTag(before) || isTag(after)) continue;
    const lineStart = before.text.lastIndexOf('\n');
    const head = before.text.slice(lineStart + 1);
    const nl = after.text.search(/\r?\n/);
    const tail = nl < 0 ? after.text : after.text.slice(0, nl);
    const first = i === 1 || lineStart >= 0;
    const last = nl >= 0 || i === pieces.length - 2;
    if (!first || !last || /\S/.test(head) || /\S/.test(tail)) continue;
    before.text = before.text.slice(0, lineStart + 1);
    after.text = nl < 0 ? '' : after.text.slice(nl + (after.text[nl] === '\r' ? 2 : 1));
  }
}

interface OpenBlock {
  readonly name: string;
  readonly at: number;
  readonly args: readonly Expr[];
  readonly hash: readonly (readonly [string, Expr])[];
  readonly params: readonly string[];
  readonly body: TemplateNode[];
  inverse: TemplateNode[] | null;
  /** nodes are added here: body, then inverse */
  into: TemplateNode[];
  /** `{{else if}}` blocks opened in this block's inverse, closed with it */
  readonly chained: boolean;
}

const PARAMS_RE = /\s+as\s+\|([^|]*)\|\s*$/;

function blockHead(
  text: string,
  at: number,
): { name: string; args: Expr[]; hash: (readonly [string, Expr])[]; params: string[] } {
  let body = text;
  let params: string[] = [];
  const m = PARAMS_RE.exec(body);
  if (m) {
    params = m[1].trim().split(/\s+/).filter(Boolean);
    body = body.slice(0, m.index);
  }
  const e = parseExpr(body);
  if (e === null) throw new SyntaxProblem(at, `cannot read the block \`${text.slice(0, 60)}\``);
  if (e.k === 'call') return { name: e.name, args: [...e.args], hash: [...e.hash], params };
  if (e.k === 'path' && e.segs.length === 1 && e.up === 0 && !e.data)
    return { name: e.segs[0], args: [], hash: [], params };
  // `{{#items.list}}`: a section over a value
  return { name: '', args: [e], hash: [], params };
}

/** Parses template text. Never throws. */
export function parseTemplateText(src: string): ParsedTemplate {
  try {
    return { ok: true, nodes: build(src, false) };
  } catch (err) {
    if (!(err instanceof SyntaxProblem)) throw err;
    return { ok: false, problem: { ...position(src, err.at), message: err.message } };
  }
}

/**
 * Parses template text that may not parse (stored before templates were checked at save): an
 * expression that does not read renders '', a stray close or `{{else}}` is dropped, and unclosed
 * blocks end with the text. Never throws.
 */
export function parseTemplateLenient(src: string): readonly TemplateNode[] {
  try {
    return build(src, true);
  } catch {
    return [{ k: 'text', v: src }];
  }
}

const NOTHING: Expr = { k: 'lit', v: undefined };

function build(src: string, lenient: boolean): TemplateNode[] {
  const pieces = scan(src);
  trimWhitespace(pieces);
  const root: TemplateNode[] = [];
  const stack: OpenBlock[] = [];
  const current = () => (stack.length === 0 ? root : stack[stack.length - 1].into);
  const open = (text: string, at: number, chained: boolean, inverted: boolean) => {
    const head = blockHead(text, at);
    const block: OpenBlock = { ...head, at, body: [], inverse: null, into: [], chained };
    block.into = block.body;
    if (inverted) {
      // `{{^x}}…{{/x}}`: the inverse of a section
      block.inverse = block.body;
    }
    stack.push(block);
  };
  for (const p of pieces) {
    if (!isTag(p)) {
      if (p.text !== '') current().push({ k: 'text', v: p.text });
      continue;
    }
    switch (p.kind) {
      case 'comment':
        break;
      case 'out': {
        if (p.body === '') break;
        // an expression that does not read renders '' (code-looking input is data, never an error)
        const e = parseExpr(p.body);
        current().push({ k: 'out', e: e ?? NOTHING });
        break;
      }
      case 'open':
      case 'inverse':
        if (p.body === '' && !lenient)
          throw new SyntaxProblem(p.at, 'a block needs a name: `{{#if …}}`, `{{#each …}}`');
        try {
          open(p.body || '_', p.at, false, p.kind === 'inverse');
        } catch (err) {
          if (!lenient) throw err;
          open('_', p.at, false, p.kind === 'inverse');
        }
        break;
      case 'else': {
        const top = stack[stack.length - 1];
        if (!top && lenient) break;
        if (!top) throw new SyntaxProblem(p.at, '`{{else}}` outside a block');
        if (top.inverse !== null && top.into === top.inverse && top.inverse !== top.body)
          throw new SyntaxProblem(p.at, `a second \`{{else}}\` in \`{{#${top.name}}}\``);
        top.inverse = [];
        top.into = top.inverse;
        if (p.body !== '') open(p.body, p.at, true, false);
        break;
      }
      case 'close': {
        let top = stack.pop();
        if (!top && lenient) break;
        if (!top) throw new SyntaxProblem(p.at, `\`{{/${p.body}}}\` closes no block`);
        // `{{else if}}` blocks end with the block they were chained to
        while (top.chained) {
          finish(top, stack);
          top = stack.pop() as OpenBlock;
        }
        if (top.name !== p.body && !(top.name === '' && p.body !== '') && !lenient)
          throw new SyntaxProblem(p.at, `\`{{/${p.body}}}\` closes \`{{#${top.name}}}\``);
        finish(top, stack, root);
        break;
      }
    }
  }
  if (lenient) while (stack.length > 0) finish(stack.pop() as OpenBlock, stack, root);
  const unclosed = stack.find((b) => !b.chained) ?? stack[0];
  if (unclosed) throw new SyntaxProblem(unclosed.at, `\`{{#${unclosed.name}}}\` is never closed`);
  return root;
}

function finish(b: OpenBlock, stack: OpenBlock[], root?: TemplateNode[]): void {
  const node: TemplateNode = {
    k: 'block',
    name: b.name,
    args: b.args,
    hash: b.hash,
    params: b.params,
    body: b.inverse === b.body ? [] : b.body,
    inverse: b.inverse,
  };
  const parent = stack[stack.length - 1];
  (parent ? parent.into : (root as TemplateNode[])).push(node);
}

/** Why a template cannot be saved (its line and column), or null when it parses. */
export function templateProblem(src: string): TemplateProblem | null {
  if (!src.includes('{{')) return null;
  const parsed = parseTemplateText(src);
  return parsed.ok ? null : parsed.problem;
}

/** Every string in a value (a collection seed, an event's data) that does not parse as a template: [pointer, problem]. */
export function templateProblemsIn(
  v: unknown,
  at: string,
  out: [string, TemplateProblem][] = [],
): [string, TemplateProblem][] {
  if (typeof v === 'string') {
    const problem = templateProblem(v);
    if (problem) out.push([at, problem]);
  } else if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) templateProblemsIn(x, `${at}/${i}`, out);
  } else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v))
      templateProblemsIn(x, `${at}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`, out);
  return out;
}

/** The `details[]` of a 400 for the templates in `v` that do not parse. */
export function templateDetails(v: unknown, at: string): ErrorDetail[] {
  return templateProblemsIn(v, at).map(([path, t]) => ({
    path,
    message: `template does not parse at line ${t.line}, column ${t.column}: ${t.message}`,
    line: t.line,
    column: t.column,
  }));
}
