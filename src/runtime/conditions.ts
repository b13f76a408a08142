/**
 * Rule conditions (docs/api.md "Rules"): compiled once when a rule is saved into `test(ctx)` closures; a request only
 * reads one value and runs one comparison per condition.
 *
 * Regular expressions run on re2js with bounded work (src/domain/regex.ts): a pattern is at most 512
 * characters and 1,000 compiled instructions, a match reads a bounded prefix of its input, and one request
 * spends at most `REQUEST_REGEX_MS` matching — a regex condition reached after that does not match.
 */

import type { Condition } from '../domain/model.js';
import { type BoundedRegex, compileBounded, RegexInvalid, RegexTooLarge } from '../domain/regex.js';
import { compileJsonPath, readJsonPath, renderJsonValue } from './template.js';
import type { EvalContext } from './types.js';

/** Time one request may spend in regular expressions, all conditions together. */
export const REQUEST_REGEX_MS = 40;

/** A condition that cannot be compiled (invalid or unsupported regex, unsupported operator for `random`). */
export class ConditionError extends Error {
  override readonly name = 'ConditionError';
}

export interface CompiledCondition {
  readonly source: Condition;
  test(ctx: EvalContext): boolean;
}

/** Reads the condition's target; `undefined` means absent. */
type Reader = (ctx: EvalContext) => string | undefined;
/** Compares a present value. */
type Predicate = (actual: string) => boolean;

const readMethod: Reader = (ctx) => ctx.req.method;
const readPath: Reader = (ctx) => ctx.req.path;
const readBody: Reader = (ctx) => ctx.req.body;
/** The path and the query string as sent: `/a/b?x=1` (`/a/b` when the request has no query). */
/** The query string as sent, without `?`; absent when the request has none. */
const readQueryString: Reader = (ctx) => (ctx.req.rawQuery === '' ? undefined : ctx.req.rawQuery);
const readUrl: Reader = (ctx) => (ctx.req.rawQuery === '' ? ctx.req.path : `${ctx.req.path}?${ctx.req.rawQuery}`);
const readAbsent: Reader = () => undefined;

function reader(c: Condition): Reader {
  switch (c.target) {
    case 'method':
      return readMethod;
    case 'path':
      return readPath;
    case 'body':
      return readBody;
    case 'url':
      return readUrl;
    case 'query_string':
      return readQueryString;
    case 'header': {
      if (c.key === undefined) return readAbsent;
      const key = c.key.toLowerCase();
      return (ctx) => ctx.req.header(key);
    }
    case 'query': {
      const key = c.key;
      if (key === undefined) return readAbsent;
      return (ctx) => ctx.req.queryParam(key);
    }
    case 'body_json': {
      const path = compileJsonPath(c.key ?? '');
      return (ctx) => {
        const doc = ctx.json();
        return doc.ok ? renderJsonValue(readJsonPath(doc.value, path)) : undefined;
      };
    }
    case 'endpoint': {
      const key = c.key;
      if (key === undefined) return readAbsent;
      return (ctx) => ctx.storage.get(key);
    }
    case 'project': {
      const key = c.key;
      if (key === undefined) return readAbsent;
      return (ctx) => ctx.projectStorage.get(key);
    }
    case 'graphql_operation':
      return (ctx) => ctx.graphql?.()?.operationName;
    case 'graphql_type':
      return (ctx) => ctx.graphql?.()?.type;
    case 'graphql_variable': {
      const path = compileJsonPath(c.key ?? '');
      return (ctx) => {
        const g = ctx.graphql?.();
        return g ? renderJsonValue(readJsonPath(g.variables, path)) : undefined;
      };
    }
    case 'graphql_field': {
      const key = c.key;
      if (key === undefined) return readAbsent;
      return (ctx) => (ctx.graphql?.()?.fields.includes(key) ? key : undefined);
    }
    case 'vars': {
      const key = c.key;
      if (key === undefined) return readAbsent;
      // a saved webhook answer compares as its body, as {{vars.NAME}} renders it
      return (ctx) => {
        const v = ctx.vars.get(key);
        return v === undefined || typeof v === 'string' ? v : v.body;
      };
    }
    default:
      return readAbsent;
  }
}

/**
 * A finite number from a trimmed, non-empty decimal ('2.5', '-3', '1e3', '.5'), else NaN. Rejects what
 * `Number()` alone would accept but a user would not call a number: '', '0x10', '0b1', 'Infinity'.
 */
export function parseDecimal(s: string): number {
  const t = s.trim();
  if (t === '') return Number.NaN;
  for (let i = 0; i < t.length; i++) {
    const ch = t.charCodeAt(i);
    const ok =
      (ch >= 48 && ch <= 57) ||
      ch === 43 /* + */ ||
      ch === 45 /* - */ ||
      ch === 46 /* . */ ||
      ch === 101 /* e */ ||
      ch === 69; /* E */
    if (!ok) return Number.NaN;
  }
  const n = Number(t);
  return Number.isFinite(n) ? n : Number.NaN;
}

function compileRegex(pattern: string): BoundedRegex {
  try {
    return compileBounded(pattern);
  } catch (e) {
    if (e instanceof RegexTooLarge || e instanceof RegexInvalid) throw new ConditionError(e.message);
    throw e;
  }
}

/** An unanchored search that stops matching (answers false) once the request has spent its regex time. */
function regexTest(re: BoundedRegex): (v: string, ctx: EvalContext) => boolean {
  return (v, ctx) => {
    const spent = ctx.regexMs ?? 0;
    if (spent >= REQUEST_REGEX_MS) return false;
    const t0 = performance.now();
    const hit = re.test(v);
    ctx.regexMs = spent + (performance.now() - t0);
    return hit;
  };
}

function predicate(c: Condition): Predicate {
  const expected = c.value ?? '';
  switch (c.operator) {
    case 'equals':
      return (v) => v === expected;
    case 'not_equals':
      return (v) => v !== expected;
    case 'contains':
      return (v) => v.includes(expected);
    case 'not_contains':
      return (v) => !v.includes(expected);
    case 'matches_regex':
      // compiled in compileCondition: it needs the request's regex clock
      return () => false;
    case 'exists':
      return () => true;
    case 'not_exists':
      return () => false;
    case 'less_than': {
      const limit = parseDecimal(expected);
      if (Number.isNaN(limit)) return () => false;
      return (v) => parseDecimal(v) < limit; // NaN < x is false
    }
    default:
      throw new ConditionError(`unsupported operator: ${String(c.operator)}`);
  }
}

/** Operators that match an absent value. */
function matchesAbsent(c: Condition): boolean {
  return c.operator === 'not_equals' || c.operator === 'not_contains' || c.operator === 'not_exists';
}

function compileRandom(c: Condition): (ctx: EvalContext) => boolean {
  if (c.operator !== 'less_than') throw new ConditionError('a random condition supports only the less_than operator');
  const percent = parseDecimal(c.value ?? '');
  if (Number.isNaN(percent)) return () => false;
  return (ctx) => ctx.rng() * 100 < percent;
}

/** Compiles a condition. Throws ConditionError for an invalid or unsupported regex (and for random without less_than). */
export function compileCondition(c: Condition): CompiledCondition {
  const source = c;
  if (c.target === 'random') return { source, test: compileRandom(c) };
  const read = reader(c);
  const absent = matchesAbsent(c);
  if (c.operator === 'matches_regex') {
    const test = regexTest(compileRegex(c.value ?? ''));
    return {
      source,
      test(ctx: EvalContext): boolean {
        const v = read(ctx);
        return v === undefined ? absent : test(v, ctx);
      },
    };
  }
  const pred = predicate(c);
  return {
    source,
    test(ctx: EvalContext): boolean {
      const v = read(ctx);
      return v === undefined ? absent : pred(v);
    },
  };
}

/** `null` when the condition compiles, else a message for the API's validation details. */
export function validateCondition(c: Condition): string | null {
  try {
    compileCondition(c);
    return null;
  } catch (e) {
    if (e instanceof ConditionError) return e.message;
    throw e;
  }
}

/** -1 when every condition matches, else the index of the first that fails (for the request log). */
export function evaluateConditions(conds: readonly CompiledCondition[], ctx: EvalContext): number {
  for (let i = 0; i < conds.length; i++) {
    if (!conds[i].test(ctx)) return i;
  }
  return -1;
}
