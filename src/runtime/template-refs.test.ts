/**
 * What a compiled template costs per request (json() parsed at most once, nothing rebuilt) and what it
 * references (request body, endpoint and project storage), over test/helpers/template-context.ts.
 */
import { describe, expect, it } from 'vitest';
import { makeCtx } from '../../test/helpers/template-context.js';
import { compileTemplate, referencesBody, referencesProjectStorage, referencesStorage } from './template.js';

describe('compileTemplate: per-request work', () => {
  it('parses the body at most through ctx.json(), and only when a body path is read', () => {
    const ctx = makeCtx({ req: { body: '{"a":1,"b":2}' } });
    expect(compileTemplate('{{request.body.a}}{{request.body.b}}')(ctx)).toBe('12');
    expect(ctx.jsonCalls).toBe(2);
    const other = makeCtx({ req: { body: '{"a":1}' } });
    compileTemplate('{{request.body}}{{request.method}}')(other);
    expect(other.jsonCalls).toBe(0);
  });

  it('a throwing context value renders empty rather than throwing', () => {
    const ctx = {
      ...makeCtx(),
      json(): never {
        throw new Error('boom');
      },
    };
    expect(compileTemplate('a{{request.body.x}}b')(ctx)).toBe('ab');
    expect(compileTemplate('{{request.body.x}}')(ctx)).toBe('');
  });

  it('never throws at compile time on odd input', () => {
    for (const src of [
      '{{',
      '}}',
      '{{"',
      '{{(',
      '{{((((',
      '{{\\}}',
      '{{\u0000}}',
      '{{'.repeat(1000),
      '{{a}}'.repeat(1000),
    ]) {
      expect(() => compileTemplate(src)(makeCtx())).not.toThrow();
    }
  });
});

describe('referencesStorage / referencesBody', () => {
  it.each([
    ['plain', false, false],
    ['{{endpoint.x}}', true, false],
    ['{{ default request.query.a endpoint.x }}', true, false],
    ['{{json (default request.query.a endpoint.x)}}', true, false],
    ['{{endpoint}}', false, false],
    ['{{request.body}}', false, true],
    ['{{request.body.a.b}}', false, true],
    ['{{json request.body.a}}', false, true],
    ['{{request.bodyx}}', false, false],
    ['{{vars.body}}', false, false],
    ['{{ endpoint.x {{request.body}}', false, true],
    ['endpoint.x request.body', false, false],
  ])('%s → storage %s, body %s', (src, storage, body) => {
    expect(referencesStorage(src)).toBe(storage);
    expect(referencesBody(src)).toBe(body);
    expect(referencesProjectStorage(src)).toBe(false);
  });
});

describe('referencesProjectStorage', () => {
  it.each([
    ['{{project.cart}}', true],
    ['{{default endpoint.x project.y}}', true],
    ['{{project}}', false],
    ['{{endpoint.project}}', false],
    ['project.cart', false],
  ])('%s → %s', (src, expected) => {
    expect(referencesProjectStorage(src)).toBe(expected);
  });
});
