/**
 * Templates (docs/templates.md): Handlebars syntax compiled once, when a rule or endpoint is saved, to
 * a render function (templates/compile.ts) that walks precomputed closures — no parsing, no `eval`,
 * output capped as it grows, loops under one iteration budget, no path reaching a prototype.
 * Saving a template that does not parse is refused with its position (`templateProblem`); one stored
 * before that check is compiled leniently (an unreadable expression renders '').
 */
import { type Expr, parseTemplateLenient, type TemplateNode } from '../domain/template-syntax.js';

export { templateProblem } from '../domain/template-syntax.js';

import { type Emit, program, run } from './templates/compile.js';
import type { RenderState } from './templates/values.js';
import type { EvalContext } from './types.js';

export { compileJsonPath, type JsonPathSegment, readJsonPath, renderJsonValue } from './json-path.js';
export { CapExceeded } from './templates/values.js';

/** Characters one rendered template may hold unless the context says otherwise (docs/limits.md). */
export const RENDER_LIMIT = 1024 * 1024;

/** Loop iterations one render may run unless the context says otherwise (docs/limits.md). */
export const MAX_ITERATIONS = 10_000;

export type Template = ((ctx: EvalContext) => string) & { readonly constant?: string };

const NO_FRAMES: RenderState['frames'] = [{ value: undefined }];

function state(ctx: EvalContext, blocks: boolean): RenderState {
  return {
    ctx,
    out: '',
    limit: ctx.renderLimit ?? RENDER_LIMIT,
    iterations: ctx.iterationLimit ?? MAX_ITERATIONS,
    locals: null,
    frames: blocks ? [{ value: undefined }] : NO_FRAMES,
  };
}

/** Compiles a template. Never throws. */
export function compileTemplate(src: string): Template {
  if (!src.includes('{{')) return constantTemplate(src);
  const emits = program(parseTemplateLenient(src));
  if (emits.length === 0) return constantTemplate('');
  if (emits.length === 1 && typeof emits[0] === 'string') return constantTemplate(emits[0]);
  const blocks = emits.some((e) => typeof e === 'function');
  const parts: readonly Emit[] = emits.slice();
  return (ctx: EvalContext): string => {
    const st = state(ctx, blocks);
    run(parts, st);
    return st.out;
  };
}

/** A template of fixed text (never parsed: `{{` in it is literal). */
export function constantTemplate(text: string): Template {
  return Object.assign((_ctx: EvalContext): string => text, { constant: text });
}

// ---------------------------------------------------------------------------------------------
// What a template reads (the engine loads only that)

function visitExprs(src: string, visit: (e: Expr) => void): void {
  if (!src.includes('{{')) return;
  const expr = (e: Expr): void => {
    visit(e);
    if (e.k === 'call') {
      e.args.forEach(expr);
      for (const [, h] of e.hash) expr(h);
    }
  };
  const nodes = (list: readonly TemplateNode[]): void => {
    for (const n of list) {
      if (n.k === 'out') expr(n.e);
      else if (n.k === 'block') {
        visit({ k: 'call', name: n.name, args: [], hash: [] });
        n.args.forEach(expr);
        for (const [, h] of n.hash) expr(h);
        nodes(n.body);
        if (n.inverse) nodes(n.inverse);
      }
    }
  };
  nodes(parseTemplateLenient(src));
}

function some(src: string, pred: (e: Expr) => boolean): boolean {
  let found = false;
  visitExprs(src, (e) => {
    found ||= pred(e);
  });
  return found;
}

const pathFrom = (e: Expr): readonly string[] | null => {
  if (e.k !== 'path' || e.self) return null;
  return e.data && e.segs[0] === 'root' ? e.segs.slice(1) : e.data ? null : e.segs;
};

const reads = (root: string) => (src: string) =>
  some(src, (e) => {
    const segs = pathFrom(e);
    return segs !== null && segs[0] === root && segs.length >= 2;
  });

/** True when the template reads `endpoint.*` (the engine then loads the endpoint's storage). */
export const referencesStorage = reads('endpoint');
/** True when the template reads `project.*` (the engine then loads the project's storage). */
export const referencesProjectStorage = reads('project');

/** True when the template reads the request body (`request.body…`, the `body` helper). */
export function referencesBody(src: string): boolean {
  return some(src, (e) => {
    if (e.k === 'call') return e.name === 'body' || e.name === 'bodyRaw';
    const segs = pathFrom(e);
    return segs !== null && segs[0] === 'request' && (segs[1] === 'body' || segs[1] === 'rawBody');
  });
}

/** True when the template calls faker (the project waits for faker to load before it is served). */
export function usesFaker(src: string): boolean {
  return some(
    src,
    (e) => (e.k === 'call' && e.name === 'faker') || (e.k === 'path' && e.segs.length === 1 && e.segs[0] === 'faker'),
  );
}

function collectionsRead(src: string, field: 'count' | 'items'): string[] {
  const out: string[] = [];
  visitExprs(src, (e) => {
    const segs = pathFrom(e);
    if (segs !== null && segs[0] === 'collection' && segs.length >= 3 && segs[2] === field) out.push(segs[1]);
  });
  return out;
}

/** The collections whose count the template reads (`{{collection.NAME.count}}`). */
export const countedCollections = (src: string): string[] => collectionsRead(src, 'count');
/** The collections whose items the template reads (`{{#each collection.NAME.items}}`). */
export const listedCollections = (src: string): string[] => collectionsRead(src, 'items');
