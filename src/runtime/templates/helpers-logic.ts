/** Template helpers: blocks, comparison and logic, arithmetic (docs/templates.md). */
import { type HelperSpec, noop, pure } from './helper-types.js';
import { isPlainObject, str, toList, toNumber, toText, truthy } from './values.js';

const block = (name: string, signature: string, description: string, example: string, output: string): HelperSpec => ({
  name,
  family: 'blocks',
  signature,
  description,
  example,
  output,
  block: true,
  fn: noop,
});

export const BLOCK_HELPERS: readonly HelperSpec[] = [
  block(
    'if',
    '{{#if value}}…{{else if other}}…{{else}}…{{/if}}',
    'The first part whose value is truthy (not false, 0, "", null, absent or an empty list).',
    '{{#if (gt 2 1)}}yes{{else}}no{{/if}}',
    'yes',
  ),
  block(
    'unless',
    '{{#unless value}}…{{else}}…{{/unless}}',
    'The part when the value is falsy.',
    '{{#unless false}}shown{{/unless}}',
    'shown',
  ),
  block(
    'each',
    '{{#each list}}…{{else}}…{{/each}}',
    'Once per item (`this`, `@index`, `@first`, `@last`; `@key` for objects); `as |item i|` names them; `{{else}}` when empty.',
    '{{#each (array "a" "b")}}{{@index}}={{this}}{{#unless @last}},{{/unless}}{{/each}}',
    '0=a,1=b',
  ),
  block(
    'with',
    '{{#with object}}…{{/with}}',
    'The part with `this` set to the value (the `{{else}}` part when absent).',
    '{{#with (object name="Ada")}}{{name}}{{/with}}',
    'Ada',
  ),
  block(
    'repeat',
    '{{#repeat count}}…{{/repeat}} · {{#repeat min max}}',
    'The part `count` times (a random count between min and max), separated by commas unless `comma=false` (as Mockoon).',
    '{{#repeat 3 comma=false}}{{@index}}{{/repeat}}',
    '012',
  ),
  block(
    'switch',
    '{{#switch value}}{{#case "a"}}…{{/case}}{{#default}}…{{/default}}{{/switch}}',
    'The first `case` equal to the value, else `default` (as Mockoon).',
    '{{#switch "b"}}{{#case "a"}}A{{/case}}{{#case "b"}}B{{/case}}{{#default}}?{{/default}}{{/switch}}',
    'B',
  ),
  block(
    'case',
    '{{#case value…}}…{{/case}}',
    'Inside `switch`: matches when equal to one of its values.',
    '{{#switch 1}}{{#case 2 1}}one{{/case}}{{/switch}}',
    'one',
  ),
  block(
    'assign',
    "{{#assign 'name'}}…{{/assign}}",
    'Keeps the rendered part as a template variable (WireMock), read with getVar or `@name`.',
    "{{#assign 'greeting'}}hi {{uppercase 'ada'}}{{/assign}}{{@greeting}}",
    'hi ADA',
  ),
  block(
    'default',
    '{{#default}}…{{/default}}',
    'Inside `switch`: the part when no case matched.',
    '{{#switch 3}}{{#case 1}}one{{/case}}{{#default}}other{{/default}}{{/switch}}',
    'other',
  ),
];

/** Loose equality as users of mocks expect it: 1 equals "1", values of lists and objects by JSON. */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return a === b;
  if (typeof a === 'object' || typeof b === 'object') return toText(a) === toText(b);
  return str(a) === str(b);
}

function compare(a: unknown, b: unknown): number {
  const x = toNumber(a);
  const y = toNumber(b);
  if (!Number.isNaN(x) && !Number.isNaN(y)) return x - y;
  const s = str(a);
  const t = str(b);
  return s < t ? -1 : s > t ? 1 : 0;
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isPlainObject(v)) return Object.keys(v).length === 0;
  return false;
}

const numbers = (args: readonly unknown[]): number[] =>
  args.flatMap((a) => (Array.isArray(a) ? a.map(toNumber) : [toNumber(a)]));

/** A number result, or absent when it is not finite. */
const num = (n: number): number | undefined => (Number.isFinite(n) ? n : undefined);

function fold(args: readonly unknown[], op: (a: number, b: number) => number): number | undefined {
  const ns = args.some(Array.isArray) ? numbers(args) : args;
  if (ns.length === 0) return undefined;
  let acc = toNumber(ns[0]);
  for (let i = 1; i < ns.length; i++) acc = op(acc, toNumber(ns[i]));
  return Number.isNaN(acc) ? undefined : num(acc);
}

export const LOGIC_HELPERS: readonly HelperSpec[] = [
  pure('logic', 'eq', 'eq a b', 'True when a equals b (1 equals "1").', '{{eq 1 "1"}}', 'true', ([a, b]) => same(a, b)),
  pure('logic', 'neq', 'neq a b', 'True when a differs from b.', '{{neq "a" "b"}}', 'true', ([a, b]) => !same(a, b), [
    'ne',
  ]),
  pure(
    'logic',
    'gt',
    'gt a b',
    'a > b (numbers when both are numeric, else text order).',
    '{{gt 10 9}}',
    'true',
    ([a, b]) => compare(a, b) > 0,
  ),
  pure('logic', 'gte', 'gte a b', 'a ≥ b.', '{{gte 2 2}}', 'true', ([a, b]) => compare(a, b) >= 0),
  pure('logic', 'lt', 'lt a b', 'a < b.', '{{lt 1 2}}', 'true', ([a, b]) => compare(a, b) < 0),
  pure('logic', 'lte', 'lte a b', 'a ≤ b.', '{{lte 3 2}}', 'false', ([a, b]) => compare(a, b) <= 0),
  pure(
    'logic',
    'and',
    'and a b…',
    'True when every value is truthy.',
    '{{and true 1 "x"}}',
    'true',
    (args) => args.length > 0 && args.every(truthy),
  ),
  pure('logic', 'or', 'or a b…', 'True when some value is truthy.', '{{or false 0 "x"}}', 'true', (args) =>
    args.some(truthy),
  ),
  pure('logic', 'not', 'not a', 'True when a is falsy.', '{{not 0}}', 'true', ([a]) => !truthy(a)),
  pure(
    'logic',
    'includes',
    'includes listOrText value',
    'True when a list holds the value, or a text contains it.',
    '{{includes (array "a" "b") "b"}}',
    'true',
    ([h, n]) => (Array.isArray(h) ? h.some((x) => same(x, n)) : h !== undefined && str(h).includes(str(n))),
    ['contains'],
  ),
  pure(
    'logic',
    'isEmpty',
    'isEmpty value',
    'True for absent, null, "", [] and {}.',
    '{{isEmpty (array)}}',
    'true',
    ([a]) => isEmpty(a),
  ),
  pure(
    'logic',
    'isOdd',
    'isOdd n',
    'True when n is an odd integer (WireMock).',
    '{{isOdd 3}}',
    'true',
    ([a]) => Math.abs(toNumber(a) % 2) === 1,
  ),
  pure(
    'logic',
    'isEven',
    'isEven n',
    'True when n is an even integer (WireMock).',
    '{{isEven 3}}',
    'false',
    ([a]) => toNumber(a) % 2 === 0,
  ),
  pure(
    'logic',
    'default',
    'default value fallback',
    'The value, or the fallback when it is absent, null or "".',
    '{{default request.query.page "1"}}',
    '1',
    ([a, b]) => (a === undefined || a === null || a === '' ? b : a),
    ['defaultIfEmpty'],
  ),
];

export const MATH_HELPERS: readonly HelperSpec[] = [
  pure('math', 'add', 'add a b…', 'Sum of the numbers.', '{{add 1 2 3}}', '6', (args) => fold(args, (x, y) => x + y), [
    'plus',
  ]),
  pure(
    'math',
    'subtract',
    'subtract a b…',
    'a minus the others.',
    '{{subtract 10 3}}',
    '7',
    (args) => fold(args, (x, y) => x - y),
    ['minus'],
  ),
  pure(
    'math',
    'multiply',
    'multiply a b…',
    'Product of the numbers.',
    '{{multiply 4 2.5}}',
    '10',
    (args) => fold(args, (x, y) => x * y),
    ['times'],
  ),
  pure('math', 'divide', 'divide a b', 'a divided by b (absent when b is 0).', '{{divide 10 4}}', '2.5', (args) =>
    fold(args, (x, y) => x / y),
  ),
  pure(
    'math',
    'modulo',
    'modulo a b',
    'Remainder of a / b.',
    '{{modulo 10 4}}',
    '2',
    (args) => fold(args, (x, y) => x % y),
    ['mod'],
  ),
  pure('math', 'abs', 'abs n', 'Absolute value.', '{{abs -4}}', '4', ([a]) => num(Math.abs(toNumber(a)))),
  pure('math', 'ceil', 'ceil n', 'Rounded up.', '{{ceil 1.2}}', '2', ([a]) => num(Math.ceil(toNumber(a)))),
  pure('math', 'floor', 'floor n', 'Rounded down.', '{{floor 1.8}}', '1', ([a]) => num(Math.floor(toNumber(a)))),
  pure('math', 'round', 'round n', 'Rounded to the nearest integer.', '{{round 2.5}}', '3', ([a]) =>
    num(Math.round(toNumber(a))),
  ),
  pure(
    'math',
    'toFixed',
    'toFixed n digits',
    'n with that many decimals (text).',
    '{{toFixed 3.14159 2}}',
    '3.14',
    ([a, d]) => {
      const n = toNumber(a);
      const digits = d === undefined ? 0 : Math.trunc(toNumber(d));
      return Number.isFinite(n) && digits >= 0 && digits <= 100 ? n.toFixed(digits) : undefined;
    },
  ),
  pure('math', 'min', 'min a b… | min list', 'The smallest number.', '{{min 3 1 2}}', '1', (args) =>
    fold(args, (x, y) => Math.min(x, y)),
  ),
  pure('math', 'max', 'max a b… | max list', 'The largest number.', '{{max (array 3 9 2)}}', '9', (args) =>
    fold(args, (x, y) => Math.max(x, y)),
  ),
  pure('math', 'sum', 'sum list | sum a b…', 'Sum of a list of numbers.', '{{sum (array 1 2 3.5)}}', '6.5', (args) =>
    fold(args, (x, y) => x + y),
  ),
  pure(
    'math',
    'math',
    'math a op b',
    "WireMock's arithmetic: op is + - * / or %.",
    "{{math 7 '*' 6}}",
    '42',
    ([a, op, b]) => {
      const x = toNumber(a);
      const y = toNumber(b);
      const r =
        op === '+'
          ? x + y
          : op === '-'
            ? x - y
            : op === '*'
              ? x * y
              : op === '/'
                ? x / y
                : op === '%'
                  ? x % y
                  : Number.NaN;
      return num(r);
    },
  ),
  pure(
    'math',
    'range',
    'range from to',
    'The integers from..to, at most 10,000 (WireMock).',
    '{{join (range 1 4) ","}}',
    '1,2,3,4',
    ([a, b]) => {
      const lo = Math.trunc(toNumber(a));
      const hi = Math.trunc(toNumber(b));
      if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [];
      const n = Math.min(Math.abs(hi - lo) + 1, 10_000);
      const stepBy = hi >= lo ? 1 : -1;
      return Array.from({ length: n }, (_, i) => lo + i * stepBy);
    },
  ),
  pure(
    'math',
    'len',
    'len listOrText',
    'Items of a list, characters of a text, keys of an object.',
    '{{len (array 1 2 3)}}',
    '3',
    ([a]) =>
      Array.isArray(a)
        ? a.length
        : isPlainObject(a)
          ? Object.keys(a).length
          : a === undefined || a === null
            ? 0
            : typeof a === 'string' && a.startsWith('[')
              ? toList(a).length || a.length
              : str(a).length,
    ['size', 'length'],
  ),
];
