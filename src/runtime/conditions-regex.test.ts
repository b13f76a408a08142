/**
 * Regular expressions in conditions (docs/api.md "Rules"): RE2 semantics, the size limits and the
 * bounded work per request (SECURITY.md, attack 6b), then evaluateConditions and parseDecimal.
 */
import { describe, expect, it } from 'vitest';
import { makeCtx } from '../../test/helpers/condition-context.js';
import type { Condition } from '../domain/model.js';
import {
  type CompiledCondition,
  ConditionError,
  compileCondition,
  evaluateConditions,
  parseDecimal,
  REQUEST_REGEX_MS,
  validateCondition,
} from './conditions.js';
import type { EvalContext } from './types.js';

const test1 = (c: Condition, ctx: EvalContext) => compileCondition(c).test(ctx);

describe('regular expressions', () => {
  it.each(['(', '[a-', '*x', '(?=x)', '(?!x)', '(a)\\1', 'a{2,1}', '\\'])('rejects %j at compile time', (value) => {
    const c: Condition = { target: 'header', key: 'x', operator: 'matches_regex', value };
    expect(validateCondition(c)).toMatch(/^invalid regular expression: /);
    expect(() => compileCondition(c)).toThrow(ConditionError);
    try {
      compileCondition(c);
    } catch (e) {
      expect(e).toBeInstanceOf(ConditionError);
      expect((e as ConditionError).message).toMatch(/invalid regular expression/);
    }
  });

  it.each(['^a+$', '^/things/[0-9]+$', '\\d{3}-\\d{4}', '(?i)vip', '(?P<n>a)|(?<m>b)', '^(a+)+$'])(
    'accepts %j',
    (value) => {
      expect(validateCondition({ target: 'body', operator: 'matches_regex', value })).toBeNull();
    },
  );

  it('does not validate the value of non-regex operators as a regex', () => {
    expect(validateCondition({ target: 'body', operator: 'contains', value: '(' })).toBeNull();
    expect(test1({ target: 'body', operator: 'contains', value: '(' }, makeCtx({ body: 'a(b' }))).toBe(true);
  });

  it('searches unanchored, like RegExp#test', () => {
    const c = compileCondition({ target: 'path', operator: 'matches_regex', value: 'ings/[0-9]' });
    expect(c.test(makeCtx({ path: '/things/7' }))).toBe(true);
    expect(c.test(makeCtx({ path: '/things/x' }))).toBe(false);
  });

  it('evaluates a catastrophic-backtracking pattern on hostile input in linear time (it completes)', () => {
    const evil = `${'a'.repeat(12_000)}!`;
    for (const value of ['^(a+)+$', '^(a|aa)+$', '^(a|a?)+$', '(.*a){20}$']) {
      const c = compileCondition({ target: 'header', key: 'x-evil', operator: 'matches_regex', value });
      expect(c.test(makeCtx({ headers: { 'x-evil': evil } }))).toBe(false);
      expect(c.test(makeCtx({ body: evil, headers: { 'x-evil': 'a'.repeat(30) } }))).toBe(true);
    }
  });
});

describe('bounded regex work', () => {
  it('a match reads at most its pattern’s share of the work budget, and a request at most 40 ms of matching', () => {
    const c = compileCondition({ target: 'body', operator: 'matches_regex', value: '(.*a){20}$' });
    // 103 instructions: 1,500,000 / 103 = 14,563 characters are read; `$` matches where reading stops
    expect(c.test(makeCtx({ body: `${'a'.repeat(14_563)}!` }))).toBe(true);
    expect(c.test(makeCtx({ body: `${'a'.repeat(14_562)}!` }))).toBe(false);
    const ctx = makeCtx({ body: 'a'.repeat(30) });
    expect(c.test(ctx)).toBe(true);
    ctx.regexMs = REQUEST_REGEX_MS;
    // the request has spent its time: later regex conditions do not match
    expect(c.test(ctx)).toBe(false);
  });
});

describe('evaluateConditions', () => {
  const conds: CompiledCondition[] = [
    compileCondition({ target: 'header', key: 'x-a', operator: 'equals', value: '1' }),
    compileCondition({ target: 'query', key: 'b', operator: 'equals', value: '2' }),
  ];
  it('returns -1 when all match, else the index of the first that fails', () => {
    expect(evaluateConditions(conds, makeCtx({ headers: { 'x-a': '1' }, query: { b: '2' } }))).toBe(-1);
    expect(evaluateConditions(conds, makeCtx({ headers: { 'x-a': '1' }, query: { b: '3' } }))).toBe(1);
    expect(evaluateConditions(conds, makeCtx({ query: { b: '2' } }))).toBe(0);
    expect(evaluateConditions(conds, makeCtx())).toBe(0);
    expect(evaluateConditions([], makeCtx())).toBe(-1);
  });
  it('stops at the first failure', () => {
    let calls = 0;
    const spy: CompiledCondition = { source: conds[0].source, test: () => ++calls > 0 };
    evaluateConditions([conds[0], spy], makeCtx());
    expect(calls).toBe(0);
  });
  it('keeps the source condition', () => {
    expect(conds[1].source).toEqual({ target: 'query', key: 'b', operator: 'equals', value: '2' });
  });
});

describe('parseDecimal', () => {
  it.each([
    ['2.5', 2.5],
    ['-3', -3],
    ['+4', 4],
    ['1e3', 1000],
    ['1E-1', 0.1],
    [' 7\n', 7],
    ['.5', 0.5],
    ['5.', 5],
  ])('%j → %d', (s, n) => expect(parseDecimal(s)).toBe(n));
  it.each(['', ' ', 'abc', '0x10', '0b1', '0o7', 'Infinity', '1e400', '1_000', '--1', '1e', '.', '1,5', 'NaN'])(
    '%j is not a number',
    (s) => expect(parseDecimal(s)).toBeNaN(),
  );
});
