/**
 * Template values: what paths and helpers give (strings, numbers, booleans, null, arrays, plain
 * objects, or `undefined` for absent), how they read, and how they render as text.
 */
import type { EvalContext } from '../types.js';

/** Names that render '' wherever they appear in a path (docs/templates.md "Caps"). */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const INDEX_RE = /^(?:0|[1-9][0-9]{0,14})$/;

export const forbidden = (key: string): boolean => FORBIDDEN.has(key);

/** One step into a value: own keys of objects, indexes and `length` of arrays and strings. */
export function step(v: unknown, key: string): unknown {
  if (v === null || v === undefined || FORBIDDEN.has(key)) return undefined;
  if (Array.isArray(v)) {
    if (key === 'length') return v.length;
    return INDEX_RE.test(key) ? v[Number(key)] : undefined;
  }
  if (typeof v === 'object') return Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : undefined;
  if (typeof v === 'string' && key === 'length') return v.length;
  return undefined;
}

export function walk(v: unknown, segs: readonly string[], from = 0): unknown {
  let cur = v;
  for (let i = from; i < segs.length && cur !== undefined; i++) cur = step(cur, segs[i]);
  return cur;
}

/**
 * A finite number as JavaScript spells it ('' otherwise). A fraction goes through JSON.stringify,
 * which spells it the same way: `String` of a non-integer puts the text in V8's number-string cache
 * and so allocates it in the old generation — under S3b (`multiply this 1.5` fifty times an answer)
 * about a million short strings a second that only a Mark-Compact frees, one every 1–2 s.
 */
export function numberText(v: number): string {
  if ((v | 0) === v) return String(v);
  return Number.isFinite(v) ? JSON.stringify(v) : '';
}

/** A value as output text: strings as they are, numbers and booleans as JSON, null as `null`, objects and arrays as compact JSON, absent as ''. */
export function toText(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return numberText(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
      return '';
    case 'object':
      if (v instanceof Date) return Number.isNaN(v.getTime()) ? '' : v.toISOString();
      return JSON.stringify(v) ?? '';
    case 'bigint':
      return v.toString();
    default:
      return '';
  }
}

/** Handlebars truthiness: false, 0, '', null, absent and empty arrays are false. */
export function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  return Boolean(v);
}

/** A number from a number or numeric text; NaN otherwise. */
export function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return Number.NaN;
}

/** Text of a value that is a string already, or its output text. */
export const str = (v: unknown): string => (typeof v === 'string' ? v : toText(v));

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
}

/** A value read as a list: arrays as they are, JSON array text parsed, anything else empty. */
export function toList(v: unknown): readonly unknown[] {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string' && v.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(v);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // not a list
    }
  }
  return [];
}

/** A template's per-render state: the request context, the output so far and the caps. */
export interface RenderState {
  readonly ctx: EvalContext;
  out: string;
  readonly limit: number;
  /** loop iterations left for this render (docs/templates.md "Caps") */
  iterations: number;
  /** setVar / getVar */
  locals: Map<string, unknown> | null;
  /** the block scopes entered: `this`, `@index`… and `as |x|` parameters */
  readonly frames: Frame[];
  /** the `{{#switch}}` blocks entered */
  switches?: { readonly value: unknown; matched: boolean }[];
}

export interface Frame {
  readonly value: unknown;
  readonly index?: number;
  readonly key?: string;
  readonly first?: boolean;
  readonly last?: boolean;
  /** `as |item index|` */
  readonly params?: readonly unknown[];
}

/** A template rendered more text than its cap: rendering stops (docs/limits.md). */
export class CapExceeded extends Error {
  constructor(
    readonly code: 'render_too_large' | 'value_too_large' | 'too_many_names',
    message: string,
  ) {
    super(message);
    this.name = 'CapExceeded';
  }
}

export function tooLarge(limit: number): CapExceeded {
  return new CapExceeded('render_too_large', `render_too_large: a template rendered more than ${limit} characters`);
}

/** Throws when a value a helper is about to build would pass the render cap. */
export function checkSize(st: RenderState, chars: number): void {
  if (chars > st.limit) throw tooLarge(st.limit);
}
