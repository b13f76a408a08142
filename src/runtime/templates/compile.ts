/**
 * Template tree → render function, once when a rule or endpoint is saved (docs/templates.md).
 * Rendering walks precomputed closures: no parsing, no `eval`. Output goes to one string that is
 * checked against the cap as it grows, and loops share one iteration budget per render.
 */
import type { Expr, TemplateNode } from '../../domain/template-syntax.js';
import type { EvalContext } from '../types.js';
import type { Hash } from './helper-types.js';
import { HELPERS } from './helpers.js';
import { same } from './helpers-logic.js';
import { ABSENT, type Compiled, type Get, getter, ROOT_NAMES, rootPath } from './roots.js';
import {
  CapExceeded,
  type Frame,
  forbidden,
  isPlainObject,
  type RenderState,
  step,
  toNumber,
  toText,
  truthy,
  walk,
} from './values.js';

/** A piece of output: fixed text, a value to print, or a block that writes itself. */
export type Emit = string | { readonly get: Get } | ((st: RenderState) => void);

interface Scope {
  /** the `as |a b|` names of each frame-pushing block around, outermost first */
  readonly params: readonly (readonly string[])[];
}

const ROOT_SCOPE: Scope = { params: [] };
const DATA_NAMES = new Set(['index', 'first', 'last', 'key']);

/** Values of one render used for folding pure helpers at compile time. */
const FOLD_STATE: RenderState = {
  ctx: null as unknown as EvalContext,
  out: '',
  limit: 1024 * 1024,
  iterations: 0,
  locals: null,
  frames: [],
};

export function valueIn(c: Compiled, st: RenderState): unknown {
  if (c.c) return c.v;
  try {
    return c.get(st);
  } catch (e) {
    // a context value that throws (an injected ctx.json) is absent; caps stop the render
    if (e instanceof CapExceeded) throw e;
    return undefined;
  }
}

function expr(e: Expr, sc: Scope, output = false): Compiled {
  switch (e.k) {
    case 'lit':
      return { c: true, v: e.v };
    case 'json':
      return { c: true, v: e.v };
    case 'call':
      return call(e.name, e.args, e.hash, sc);
    case 'path':
      return path(e, sc, output);
  }
}

function path(e: Extract<Expr, { k: 'path' }>, sc: Scope, output: boolean): Compiled {
  const { segs, up, data, self } = e;
  if (segs.some(forbidden)) return ABSENT;
  const depth = sc.params.length;
  if (data) {
    const [head] = segs;
    if (head === 'root') return rootPath(segs.slice(1), output);
    const at = Math.max(0, depth - up);
    if (DATA_NAMES.has(head) && segs.length === 1) {
      if (at === 0) return ABSENT;
      const k = head as 'index' | 'first' | 'last' | 'key';
      return getter((st) => st.frames[at]?.[k]);
    }
    // `@name`: a value kept with setVar (as Mockoon)
    return getter((st) => walk(st.locals?.get(head), segs, 1));
  }
  if (!self && up === 0 && segs.length === 1 && HELPERS.has(segs[0])) return call(segs[0], [], [], sc);
  const at = depth - up;
  if (at <= 0) return self ? ABSENT : rootPath(segs, output);
  if (self) return getter((st) => walk(st.frames[at]?.value, segs));
  const [head] = segs;
  for (let d = at; d >= 1; d--) {
    const i = sc.params[d - 1].indexOf(head);
    if (i >= 0) return getter((st) => walk(paramOf(st.frames[d], i), segs, 1));
  }
  const fromRoot = ROOT_NAMES.has(head) ? rootPath(segs, output) : ABSENT;
  return getter((st) => {
    const v = step(st.frames[at]?.value, head);
    return v !== undefined ? walk(v, segs, 1) : valueIn(fromRoot, st);
  });
}

function hashOf(pairs: readonly (readonly [string, Compiled])[], st: RenderState): Hash {
  if (pairs.length === 0) return NO_HASH;
  const out: Record<string, unknown> = {};
  for (const [k, c] of pairs) out[k] = valueIn(c, st);
  return out;
}

const NO_HASH: Hash = Object.freeze({});

function call(name: string, args: readonly Expr[], hash: readonly (readonly [string, Expr])[], sc: Scope): Compiled {
  const spec = HELPERS.get(name);
  // an unknown helper renders '' (docs/templates.md)
  if (spec === undefined || spec.block) return ABSENT;
  const cargs = args.map((a) => expr(a, sc));
  const chash = hash.filter(([k]) => !forbidden(k)).map(([k, e]) => [k, expr(e, sc)] as const);
  const fn = spec.fn;
  if (spec.pure && cargs.every((a) => a.c) && chash.every(([, c]) => c.c)) {
    try {
      const v = fn(
        cargs.map((a) => (a as { v: unknown }).v),
        hashOf(chash, FOLD_STATE),
        FOLD_STATE,
      );
      return { c: true, v };
    } catch {
      // rendered per request instead (a cap, say, counts against the request's limit)
    }
  }
  if (chash.length === 0 && cargs.length <= 2) {
    // the common shapes without an array map per call
    const [a, b] = cargs;
    if (a === undefined) return getter((st) => fn([], NO_HASH, st));
    if (b === undefined) return getter((st) => fn([valueIn(a, st)], NO_HASH, st));
    return getter((st) => fn([valueIn(a, st), valueIn(b, st)], NO_HASH, st));
  }
  return getter((st) =>
    fn(
      cargs.map((a) => valueIn(a, st)),
      hashOf(chash, st),
      st,
    ),
  );
}

/** Block parameter `i` of a frame: `as |item index|` of each (the key for an object), `as |x|` of with. */
function paramOf(f: Frame | undefined, i: number): unknown {
  if (f === undefined) return undefined;
  if (f.params) return f.params[i];
  return i === 0 ? f.value : (f.key ?? f.index);
}

/** The nodes of a program as emits, consecutive fixed texts merged. */
export function program(nodes: readonly TemplateNode[], sc: Scope = ROOT_SCOPE): Emit[] {
  const out: Emit[] = [];
  const pushText = (t: string) => {
    if (t === '') return;
    const last = out.length - 1;
    if (last >= 0 && typeof out[last] === 'string') out[last] += t;
    else out.push(t);
  };
  for (const n of nodes) {
    if (n.k === 'text') pushText(n.v);
    else if (n.k === 'out') {
      const c = expr(n.e, sc, true);
      if (c.c) pushText(toText(c.v));
      else out.push({ get: c.get });
    } else out.push(block(n, sc));
  }
  return out;
}

export function run(emits: readonly Emit[], st: RenderState): void {
  for (let i = 0; i < emits.length; i++) {
    const e = emits[i];
    if (typeof e === 'string') st.out += e;
    else if (typeof e === 'function') {
      e(st);
      continue;
    } else {
      let v: unknown;
      try {
        v = e.get(st);
      } catch (err) {
        if (err instanceof CapExceeded) throw err;
        v = undefined;
      }
      st.out += toText(v);
    }
    // checked as it grows: a loop stops at the cap, not after building the whole text
    if (st.out.length > st.limit)
      throw new CapExceeded(
        'render_too_large',
        `render_too_large: a template rendered more than ${st.limit} characters`,
      );
  }
}

type BlockNode = Extract<TemplateNode, { k: 'block' }>;

function block(n: BlockNode, sc: Scope): (st: RenderState) => void {
  const inner: Scope = { params: [...sc.params, n.params] };
  const inverse = program(n.inverse ?? [], sc);
  const hash = n.hash.filter(([k]) => !forbidden(k)).map(([k, e]) => [k, expr(e, sc)] as const);
  const arg = n.args[0] === undefined ? null : expr(n.args[0], sc);
  const value = (st: RenderState) => (arg === null ? undefined : valueIn(arg, st));
  switch (n.name) {
    case 'if':
    case 'unless': {
      const body = program(n.body, sc);
      const negate = n.name === 'unless';
      const includeZero = hash.some(([k, c]) => k === 'includeZero' && c.c && c.v === true);
      return (st) => {
        const v = value(st);
        const t = includeZero && v === 0 ? true : truthy(v);
        run(t !== negate ? body : inverse, st);
      };
    }
    case 'each':
      return eachBlock(program(n.body, inner), inverse, value);
    case 'with': {
      const body = program(n.body, inner);
      return (st) => {
        const v = value(st);
        if (!truthy(v)) return run(inverse, st);
        enter(st, { value: v }, body);
      };
    }
    case 'repeat':
      return repeatBlock(
        program(n.body, inner),
        n.args.map((a) => expr(a, sc)),
        hash,
      );
    case 'switch': {
      const body = program(n.body, sc);
      return (st) => {
        st.switches ??= [];
        const switches = st.switches;
        switches.push({ value: value(st), matched: false });
        try {
          run(body, st);
        } finally {
          switches.pop();
        }
      };
    }
    case 'assign': {
      const body = program(n.body, sc);
      return (st) => {
        const name = value(st);
        const before = st.out;
        st.out = '';
        try {
          run(body, st);
          if (name !== undefined && !forbidden(toText(name))) {
            st.locals ??= new Map();
            st.locals.set(toText(name), st.out);
          }
        } finally {
          st.out = before;
        }
      };
    }
    case 'case': {
      const body = program(n.body, sc);
      const values = n.args.map((a) => expr(a, sc));
      return (st) => {
        const sw = st.switches?.[st.switches.length - 1];
        if (!sw || sw.matched || !values.some((c) => same(valueIn(c, st), sw.value))) return;
        sw.matched = true;
        run(body, st);
      };
    }
    case 'default': {
      const body = program(n.body, sc);
      return (st) => {
        const sw = st.switches?.[st.switches.length - 1];
        if (sw && !sw.matched) run(body, st);
      };
    }
    default:
      return section(n, sc, inner, inverse);
  }
}

/** `{{#name}}…{{/name}}` of a value (Mustache sections): a list loops, an object scopes, a truthy value shows. */
function section(n: BlockNode, sc: Scope, inner: Scope, inverse: Emit[]): (st: RenderState) => void {
  const target =
    n.name === '' || HELPERS.has(n.name)
      ? n.args[0] === undefined
        ? ABSENT
        : expr(n.args[0], sc)
      : expr({ k: 'path', segs: [n.name], up: 0, data: false, self: false }, sc);
  const body = program(n.body, inner);
  const each = eachBlock(body, inverse, (st) => valueIn(target, st));
  return (st) => {
    const v = valueIn(target, st);
    if (Array.isArray(v)) return each(st);
    if (!truthy(v)) return run(inverse, st);
    enter(st, { value: isPlainObject(v) ? v : (st.frames[st.frames.length - 1]?.value ?? v), params: [v] }, body);
  };
}

function enter(st: RenderState, frame: Frame, body: readonly Emit[]): void {
  st.frames.push(frame);
  try {
    run(body, st);
  } finally {
    st.frames.pop();
  }
}

/** Takes one loop iteration from the render's budget; false when it is spent. */
function iterate(st: RenderState): boolean {
  if (st.iterations <= 0) return false;
  st.iterations--;
  return true;
}

/** The frame of an `each` over a list, updated in place from item to item. */
interface LoopFrame {
  value: unknown;
  index: number;
  first: boolean;
  last: boolean;
}

function eachBlock(body: readonly Emit[], inverse: readonly Emit[], value: (st: RenderState) => unknown) {
  return (st: RenderState): void => {
    const v = value(st);
    if (Array.isArray(v) && v.length > 0) {
      const last = v.length - 1;
      // one frame for the loop, moved along: a frame is read only while its iteration renders (no
      // getter keeps it), so an object and a try/finally per item are not needed
      const frame: LoopFrame = { value: undefined, index: 0, first: true, last: false };
      st.frames.push(frame);
      try {
        for (let i = 0; i <= last && iterate(st); i++) {
          frame.value = v[i];
          frame.index = i;
          frame.first = i === 0;
          frame.last = i === last;
          run(body, st);
        }
      } finally {
        st.frames.pop();
      }
      return;
    }
    if (isPlainObject(v)) {
      const keys = Object.keys(v).filter((k) => !forbidden(k));
      if (keys.length > 0) {
        const last = keys.length - 1;
        for (let i = 0; i <= last && iterate(st); i++)
          enter(
            st,
            {
              value: v[keys[i]],
              index: i,
              key: keys[i],
              first: i === 0,
              last: i === last,
            },
            body,
          );
        return;
      }
    }
    run(inverse, st);
  };
}

function repeatBlock(body: readonly Emit[], args: readonly Compiled[], hash: readonly (readonly [string, Compiled])[]) {
  const commaArg = hash.find(([k]) => k === 'comma')?.[1];
  return (st: RenderState): void => {
    const a = Math.trunc(toNumber(args[0] ? valueIn(args[0], st) : undefined));
    const b = args[1] ? Math.trunc(toNumber(valueIn(args[1], st))) : Number.NaN;
    let count = Number.isFinite(a) ? a : 0;
    if (Number.isFinite(b)) {
      const lo = Math.min(count, b);
      count = lo + Math.floor(st.ctx.rng() * (Math.max(count, b) - lo + 1));
    }
    const comma = commaArg === undefined ? true : truthy(valueIn(commaArg, st));
    const self = st.frames[st.frames.length - 1]?.value;
    for (let i = 0; i < count && iterate(st); i++) {
      if (i > 0 && comma) run([','], st);
      enter(st, { value: self, index: i, first: i === 0, last: i === count - 1, params: [i] }, body);
    }
  };
}
