import { describe, expect, it } from 'vitest';
import { parseJsonLenient, stripJsonComments } from './json-comments.js';

describe('JSON with comments (WireMock mapping files)', () => {
  it('reads line and block comments outside strings, and leaves strings alone', () => {
    const text = '{\n  // the stub\n  "url": "/a//b", /* inline */ "body": "x // y /* z */"\n}';
    expect(parseJsonLenient(text)).toEqual({ url: '/a//b', body: 'x // y /* z */' });
    expect(stripJsonComments('"\\"//" // c')).toBe('"\\"//"     ');
  });

  it('throws the JSON error for what is not JSON with or without comments', () => {
    expect(() => parseJsonLenient('{"a": // c\n}')).toThrow(SyntaxError);
    expect(() => parseJsonLenient('{"a": 1')).toThrow(SyntaxError);
  });
});
