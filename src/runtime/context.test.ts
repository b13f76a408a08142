import { describe, expect, it } from 'vitest';
import { parseQuery } from './context.js';

describe('parseQuery', () => {
  const cases = [
    'a=1&b=2',
    'a=1&a=2',
    'q=a%20b&r=c+d',
    'x&y=&=z',
    '&&a=1&&',
    'k%3D=v%26w',
    'bad=%E0%A4%A&ok=1',
    'bad2=%zz',
    '__proto__=p&constructor=c',
    'emoji=%F0%9F%98%80',
    '',
  ];
  it.each(cases)('decodes %j like URLSearchParams (first value wins)', (raw) => {
    const expected: Record<string, string> = Object.create(null);
    for (const [k, v] of new URLSearchParams(raw)) if (!(k in expected)) expected[k] = v;
    const got: Record<string, string> = Object.create(null);
    parseQuery(raw, got);
    expect({ ...got }).toEqual({ ...expected });
  });
});
