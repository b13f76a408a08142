/**
 * Conditions compiled and tested over a request context (test/helpers/condition-context.ts): every
 * target and operator, absent values, reading values, url, graphql fields, random. Regular
 * expressions, bounded regex work, evaluateConditions and parseDecimal: conditions-regex.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { makeCtx } from '../../test/helpers/condition-context.js';
import type { Condition, ConditionTarget, Operator } from '../domain/model.js';
import { ConditionError, compileCondition, validateCondition } from './conditions.js';
import type { EvalContext, GraphqlRequestView } from './types.js';

const test1 = (c: Condition, ctx: EvalContext) => compileCondition(c).test(ctx);

/** How to make a request whose target reads `value` (undefined: absent, where the target can be absent). */
const TARGETS: Record<
  Exclude<ConditionTarget, 'random' | 'graphql_field'>,
  { key?: string; ctx(value: string | undefined): EvalContext }
> = {
  method: { ctx: (v) => makeCtx({ method: v }) },
  path: { ctx: (v) => makeCtx({ path: v }) },
  body: { ctx: (v) => makeCtx({ body: v }) },
  query_string: { ctx: (v) => makeCtx({ rawQuery: v ?? '' }) },
  // the path and the query as sent, split where a request line splits them
  url: {
    ctx: (v) => {
      const q = v?.indexOf('?') ?? -1;
      return makeCtx(q < 0 ? { path: v } : { path: v?.slice(0, q), rawQuery: v?.slice(q + 1) });
    },
  },
  header: { key: 'X-Tier', ctx: (v) => makeCtx({ headers: v === undefined ? { other: 'vip' } : { 'x-tier': v } }) },
  query: { key: 'q', ctx: (v) => makeCtx({ query: v === undefined ? { other: 'vip' } : { q: v } }) },
  body_json: {
    key: 'user.name',
    ctx: (v) => makeCtx({ body: JSON.stringify(v === undefined ? { user: { other: 'vip' } } : { user: { name: v } }) }),
  },
  // state (docs/stateful-mocks.md): stored values of the endpoint and the project, this request's variables
  endpoint: {
    key: 'cart',
    ctx: (v) => makeCtx({}, 0.5, { storage: v === undefined ? { other: 'full' } : { cart: v } }),
  },
  project: {
    key: 'cart',
    ctx: (v) => makeCtx({}, 0.5, { projectStorage: v === undefined ? { other: 'full' } : { cart: v } }),
  },
  vars: {
    key: 'tier',
    ctx: (v) => makeCtx({}, 0.5, { vars: v === undefined ? { other: 'gold' } : { tier: v } }),
  },
  // GraphQL endpoints (docs/graphql.md): the operation's name and type, and its variables
  graphql_operation: { ctx: (v) => gqlCtx({ operationName: v }) },
  graphql_type: { ctx: (v) => gqlCtx({ type: v as 'query' | undefined }) },
  graphql_variable: {
    key: 'filter.tier',
    ctx: (v) => gqlCtx({ variables: v === undefined ? { filter: { other: 'x' } } : { filter: { tier: v } } }),
  },
};

function gqlCtx(g: Partial<GraphqlRequestView>): EvalContext {
  const view: GraphqlRequestView = { operationName: undefined, type: undefined, variables: {}, fields: [], ...g };
  return { ...makeCtx(), graphql: () => view };
}

describe('url', () => {
  it('is the whole path and query: WireMock `url` equals one request line exactly', () => {
    const c = compileCondition({ target: 'url', operator: 'equals', value: '/q?a=1' });
    expect(c.test(makeCtx({ path: '/q', rawQuery: 'a=1' }))).toBe(true);
    expect(c.test(makeCtx({ path: '/q', rawQuery: 'a=1&b=2' }))).toBe(false);
    expect(c.test(makeCtx({ path: '/q', rawQuery: '' }))).toBe(false);
    const bare = compileCondition({ target: 'url', operator: 'equals', value: '/q' });
    expect(bare.test(makeCtx({ path: '/q', rawQuery: '' }))).toBe(true);
    expect(bare.test(makeCtx({ path: '/q', rawQuery: 'b=2' }))).toBe(false);
  });
});

describe('graphql_field', () => {
  it('exists when the operation selects the field at the top level', () => {
    const c = (operator: Operator) => compileCondition({ target: 'graphql_field', key: 'users', operator });
    const ctx = gqlCtx({ fields: ['users', 'me'] });
    expect(c('exists').test(ctx)).toBe(true);
    expect(c('not_exists').test(ctx)).toBe(false);
    expect(c('exists').test(gqlCtx({ fields: ['me'] }))).toBe(false);
    expect(c('exists').test(makeCtx())).toBe(false);
  });
});

/** [operator, condition value, actual value, expected] for a present value. */
const PRESENT: [Operator, string | undefined, string, boolean][] = [
  ['equals', 'vip', 'vip', true],
  ['equals', 'vip', 'VIP', false],
  ['equals', 'vip', 'vipx', false],
  ['equals', '', '', true],
  ['not_equals', 'vip', 'gold', true],
  ['not_equals', 'vip', 'vip', false],
  ['not_equals', 'vip', 'VIP', true],
  ['contains', 'ip', 'vip', true],
  ['contains', 'IP', 'vip', false],
  ['contains', 'ip', 'gold', false],
  ['contains', '', 'gold', true],
  ['not_contains', 'ip', 'gold', true],
  ['not_contains', 'ip', 'vip', false],
  ['not_contains', 'IP', 'vip', true],
  ['matches_regex', '^v.p$', 'vip', true],
  ['matches_regex', '^v.p$', 'xvip', false],
  ['matches_regex', 'i', 'vip', true],
  ['matches_regex', 'I', 'vip', false],
  ['matches_regex', '(?i)I', 'vip', true],
  ['matches_regex', '^[0-9]+$', '123', true],
  ['matches_regex', '', 'anything', true],
  ['exists', undefined, 'vip', true],
  ['exists', undefined, '', true],
  ['not_exists', undefined, 'vip', false],
  ['not_exists', undefined, '', false],
  ['less_than', '10', '9', true],
  ['less_than', '10', '10', false],
  ['less_than', '10', '11', false],
  ['less_than', '10', '2.5', true],
  ['less_than', '10', '-3', true],
  ['less_than', '10', ' 5 ', true],
  ['less_than', '10', '1e0', true],
  ['less_than', '10', '1e3', false],
  ['less_than', '10', '.5', true],
  ['less_than', '10', 'abc', false],
  ['less_than', '10', '', false],
  ['less_than', '10', '0x5', false],
  ['less_than', '10', '-Infinity', false],
  ['less_than', '10', '5abc', false],
  ['less_than', '100', '20', true],
  ['less_than', 'abc', '5', false],
  ['less_than', '', '5', false],
  ['less_than', '2.5', '2.4', true],
];

const OPERATORS: Operator[] = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'matches_regex',
  'exists',
  'not_exists',
  'less_than',
];
const MATCH_ABSENT = new Set<Operator>(['not_equals', 'not_contains', 'not_exists']);

describe('compileCondition: every target × operator, present values', () => {
  for (const [target, t] of Object.entries(TARGETS)) {
    // an empty query string is no query string: that target's present values are never empty
    const cases = target === 'query_string' ? PRESENT.filter(([, , actual]) => actual !== '') : PRESENT;
    it.each(cases)(`${target} %s %j against %j → %s`, (operator, value, actual, expected) => {
      const c: Condition = { target: target as ConditionTarget, key: t.key, operator, value };
      // method and path are never empty in practice, but the comparison must not care
      expect(test1(c, t.ctx(actual))).toBe(expected);
    });
  }
});

describe('compileCondition: absent values (only not_equals, not_contains, not_exists match)', () => {
  for (const target of ['header', 'query', 'body_json', 'query_string'] as const) {
    it.each(OPERATORS)(`${target} %s against an absent value`, (operator) => {
      const c: Condition = { target, key: TARGETS[target].key, operator, value: 'vip' };
      expect(test1(c, TARGETS[target].ctx(undefined))).toBe(MATCH_ABSENT.has(operator));
    });
  }

  it.each(OPERATORS)('body_json %s when the body is not JSON or empty', (operator) => {
    const c: Condition = { target: 'body_json', key: 'a', operator, value: 'x' };
    expect(test1(c, makeCtx({ body: 'x' }))).toBe(MATCH_ABSENT.has(operator));
    expect(test1(c, makeCtx({ body: '' }))).toBe(MATCH_ABSENT.has(operator));
  });

  it.each(OPERATORS)('an empty body is present for target body (%s)', (operator) => {
    const c: Condition = { target: 'body', operator, value: 'x' };
    const expected = { not_equals: true, not_contains: true, matches_regex: false, exists: true } as Partial<
      Record<Operator, boolean>
    >;
    expect(test1(c, makeCtx({ body: '' }))).toBe(expected[operator] ?? false);
  });

  it('a keyed target without a key reads an absent value', () => {
    expect(test1({ target: 'header', operator: 'exists' }, makeCtx({ headers: { x: '1' } }))).toBe(false);
    expect(test1({ target: 'query', operator: 'not_exists' }, makeCtx({ query: { x: '1' } }))).toBe(true);
  });
});

describe('compileCondition: reading values', () => {
  it('header keys are case-insensitive; repeated headers arrive joined', () => {
    const ctx = makeCtx({ headers: { 'x-multi': 'a, b', 'x-tier': 'vip' } });
    expect(test1({ target: 'header', key: 'X-TIER', operator: 'equals', value: 'vip' }, ctx)).toBe(true);
    expect(test1({ target: 'header', key: 'x-multi', operator: 'equals', value: 'a, b' }, ctx)).toBe(true);
  });

  it('query keys are case-sensitive and own properties only', () => {
    const ctx = makeCtx({ query: { Q: '1' } });
    expect(test1({ target: 'query', key: 'q', operator: 'exists' }, ctx)).toBe(false);
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(test1({ target: 'query', key, operator: 'exists' }, ctx)).toBe(false);
      expect(test1({ target: 'header', key, operator: 'exists' }, ctx)).toBe(false);
      expect(test1({ target: 'body_json', key, operator: 'exists' }, makeCtx({ body: '{}' }))).toBe(false);
      expect(test1({ target: 'body_json', key: `a.${key}`, operator: 'exists' }, makeCtx({ body: '{"a":[]}' }))).toBe(
        false,
      );
    }
    const proto = makeCtx({ query: JSON.parse('{"__proto__":"x"}'), body: '{"__proto__":{"y":1}}' });
    expect(test1({ target: 'query', key: '__proto__', operator: 'equals', value: 'x' }, proto)).toBe(true);
    expect(test1({ target: 'body_json', key: '__proto__.y', operator: 'equals', value: '1' }, proto)).toBe(true);
  });

  it.each([
    ['n', '{"n":42}', '42'],
    ['n', '{"n": 42.5}', '42.5'],
    ['n', '{"n":"42"}', '42'],
    ['flag', '{"flag":true}', 'true'],
    ['flag', '{"flag":false}', 'false'],
    ['x', '{"x":null}', 'null'],
    ['o', '{"o": {"a": 1, "b": [1, 2]}}', '{"a":1,"b":[1,2]}'],
    ['arr', '{"arr": [1, 2, 3]}', '[1,2,3]'],
    ['items.0.name', '{"items":[{"name":"first"},{"name":"second"}]}', 'first'],
    ['items.1.name', '{"items":[{"name":"first"},{"name":"second"}]}', 'second'],
    ['0', '["zero"]', 'zero'],
    ['', '{"a":1}', '{"a":1}'],
  ])('body_json %s of %s reads %s', (key, body, expected) => {
    expect(test1({ target: 'body_json', key, operator: 'equals', value: expected }, makeCtx({ body }))).toBe(true);
  });

  it.each([
    ['items.2.name', '{"items":[{"name":"first"}]}'],
    ['items.-1', '{"items":[1]}'],
    ['items.01', '{"items":[1,2]}'],
    ['items.length', '{"items":[1]}'],
    ['a.b', '{"a":"str"}'],
    ['a.b', '{"a":null}'],
    ['a', '[1]'],
  ])('body_json %s of %s is absent', (key, body) => {
    expect(test1({ target: 'body_json', key, operator: 'exists' }, makeCtx({ body }))).toBe(false);
  });

  it('body_json numbers compare numerically with less_than', () => {
    const c: Condition = { target: 'body_json', key: 'n', operator: 'less_than', value: '50' };
    expect(test1(c, makeCtx({ body: '{"n":7.5}' }))).toBe(true);
    expect(test1(c, makeCtx({ body: '{"n":"42"}' }))).toBe(true);
    expect(test1(c, makeCtx({ body: '{"n":60}' }))).toBe(false);
    expect(test1(c, makeCtx({ body: '{"n":true}' }))).toBe(false);
  });
});

describe('random target', () => {
  const random = (value: string) => compileCondition({ target: 'random', operator: 'less_than', value });
  it('matches when rng()*100 < N', () => {
    expect(random('30').test(makeCtx({}, 0.29))).toBe(true);
    expect(random('30').test(makeCtx({}, 0.3))).toBe(false);
    expect(random('2.5').test(makeCtx({}, 0.02))).toBe(true);
    expect(random('abc').test(makeCtx({}, 0))).toBe(false);
  });
  it('0 never matches, 100 always matches', () => {
    for (const r of [0, 0.000001, 0.5, 0.999999]) {
      expect(random('0').test(makeCtx({}, r))).toBe(false);
      expect(random('100').test(makeCtx({}, r))).toBe(true);
    }
  });
  it('supports only less_than', () => {
    expect(validateCondition({ target: 'random', operator: 'equals', value: '5' })).toMatch(/less_than/);
    expect(() => compileCondition({ target: 'random', operator: 'exists' })).toThrow(ConditionError);
    expect(validateCondition({ target: 'random', operator: 'less_than', value: '5' })).toBeNull();
  });
});
