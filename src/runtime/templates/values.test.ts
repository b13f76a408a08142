import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../template.js';
import { exampleContext } from './example-context.js';
import { numberText, toText } from './values.js';

describe('numbers as text', () => {
  const numbers = [
    0,
    -0,
    1,
    -1,
    7,
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31),
    -(2 ** 31) - 1,
    2 ** 53,
    1.5,
    -2.25,
    0.1 + 0.2,
    1 / 3,
    1e21,
    1e-7,
    123456789012.5,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    Number.EPSILON,
  ];

  it.each(numbers)('%d is spelled as String spells it', (n) => {
    expect(numberText(n)).toBe(String(n));
    expect(toText(n)).toBe(String(n));
  });

  it('a number that is not finite renders nothing', () => {
    for (const n of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) expect(toText(n)).toBe('');
  });

  it('a template writes fractions and integers alike (bench S3b: multiply under #each)', () => {
    const render = compileTemplate(
      '{{#each (range 1 5)}}{{multiply this 1.5}},{{/each}}{{divide 1 3}},{{multiply 1e20 100}}',
    );
    expect(render(exampleContext())).toBe(`1.5,3,4.5,6,7.5,${1 / 3},1e+22`);
  });
});
