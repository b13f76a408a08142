import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MockRequestView, parseQuery } from './context.js';

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

describe('MockRequestView.queryParam and header', () => {
  // node's headers and the raw lines they were parsed from
  const view = (rawQuery: string, headers: Record<string, string | string[]> = {}) =>
    new MockRequestView(
      'GET',
      '/x',
      rawQuery,
      headers,
      Object.entries(headers).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).flatMap((x) => [k, x])),
    );

  it('finds one parameter exactly as the parsed query has it, for any query', () => {
    const chars = fc.constantFrom('a', 'b', 'ab', '=', '&', '%20', '+', '%zz', '__proto__', 'é', '');
    fc.assert(
      fc.property(
        fc.array(chars, { maxLength: 12 }),
        fc.constantFrom('a', 'b', 'ab', '', '__proto__', 'c'),
        (parts, name) => {
          const raw = parts.join('');
          const parsed: Record<string, string> = Object.create(null);
          parseQuery(raw, parsed);
          expect(view(raw).queryParam(name)).toBe(Object.hasOwn(parsed, name) ? parsed[name] : undefined);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads one header as the flat headers have it, and nothing from the prototype', () => {
    const v = view('', { 'x-tier': 'vip', 'set-cookie': ['a=1', 'b=2'] });
    expect(v.header('x-tier')).toBe('vip');
    expect(v.header('set-cookie')).toBe('a=1, b=2');
    expect(v.header('constructor')).toBeUndefined();
    expect(v.header('missing')).toBeUndefined();
    expect(v.headers['set-cookie']).toBe(v.header('set-cookie'));
    // once all headers were flattened, one is read from them
    expect(v.header('x-tier')).toBe('vip');
    expect(v.header('constructor')).toBeUndefined();
  });
});
