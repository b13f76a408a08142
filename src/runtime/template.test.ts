/**
 * compileTemplate over a deterministic context (test/helpers/template-context.ts): constants, request
 * values, syntax, names as data, storage, generated values and helpers. Per-request work and what a
 * template references: template-refs.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { type CtxOptions, makeCtx, NOW, render } from '../../test/helpers/template-context.js';
import { compileTemplate } from './template.js';
import type { RequestView } from './types.js';

describe('compileTemplate: constants', () => {
  it.each([
    ['plain text', 'plain text'],
    ['', ''],
    ['{"a":1}', '{"a":1}'],
    ['open {{ never closed', 'open {{ never closed'],
    ['}} stray close', '}} stray close'],
    ['{ single } braces', '{ single } braces'],
  ])('%j has .constant %j', (src, expected) => {
    const t = compileTemplate(src);
    expect(t.constant).toBe(expected);
    expect(t(makeCtx())).toBe(expected);
  });

  it('folds expressions known at compile time (unknown names, literals) into the constant', () => {
    expect(compileTemplate('a{{whatever.thing}}b').constant).toBe('ab');
    expect(compileTemplate('{{"lit"}}-{{42}}').constant).toBe('lit-42');
    expect(compileTemplate('{{json "a\\"b"}}').constant).toBe('a\\"b');
  });

  it('has no .constant when a value is read per request', () => {
    expect(compileTemplate('{{request.path}}').constant).toBeUndefined();
    expect(compileTemplate('x{{$uuid}}').constant).toBeUndefined();
  });
});

describe('compileTemplate: request values', () => {
  const req: Partial<RequestView> = {
    method: 'POST',
    path: '/users/42',
    query: { q: 'hello world', 'filter.name': 'ann', empty: '' },
    headers: { 'x-foo': 'bar', 'content-type': 'application/json' },
    params: { id: '42' },
    body: '{"user":{"name":"ann","age":30,"admin":false,"tags":["a","b"],"nil":null},"items":[{"name":"first"}]}',
  };
  it.each([
    ['{{request.method}}', 'POST'],
    ['{{request.path}}', '/users/42'],
    ['{{request.params.id}}', '42'],
    ['{{request.query.q}}', 'hello world'],
    ['{{request.query.filter.name}}', 'ann'],
    ['[{{request.query.empty}}]', '[]'],
    ['{{request.headers.x-foo}}', 'bar'],
    ['{{request.headers.X-Foo}}', 'bar'],
    ['{{request.headers.Content-Type}}', 'application/json'],
    ['{{request.body.user.name}}', 'ann'],
    ['{{request.body.user.age}}', '30'],
    ['{{request.body.user.admin}}', 'false'],
    ['{{request.body.user.nil}}', 'null'],
    ['{{request.body.user.tags}}', '["a","b"]'],
    ['{{request.body.user.tags.1}}', 'b'],
    ['{{request.body.items.0.name}}', 'first'],
    ['{{request.body.items.0}}', '{"name":"first"}'],
    ['[{{request.body.items.1.name}}]', '[]'],
    ['[{{request.body.items.01}}]', '[]'],
    ['{{request.body.items.length}}', '1'],
    ['[{{request.body.user.name.first}}]', '[]'],
    ['[{{request.body.user..name}}]', '[]'],
    ['[{{request.query.nope}}][{{request.headers.x-none}}][{{request.params.nope}}]', '[][][]'],
    ['[{{request}}][{{request.nope}}][{{request.method.x}}]', '[][][]'],
    ['{{request.headers}}', '{"x-foo":"bar","content-type":"application/json"}'],
  ])('%s → %s', (src, expected) => {
    expect(render(src, { req })).toBe(expected);
  });

  it('renders the raw body, and body paths as absent when the body is not JSON', () => {
    expect(render('{{request.body}}', { req: { body: 'not json' } })).toBe('not json');
    expect(render('[{{request.body.a}}]', { req: { body: 'not json' } })).toBe('[]');
    expect(render('[{{request.body}}][{{request.body.a}}]')).toBe('[][]');
  });

  it('a JSON string body at the root, and a path into it', () => {
    expect(render('[{{request.body.x}}]', { req: { body: '"str"' } })).toBe('[]');
  });
});

describe('compileTemplate: syntax', () => {
  const req: Partial<RequestView> = { query: { name: 'ann' }, method: 'GET' };
  it.each([
    ['{{ request.query.name }}', 'ann'],
    ['{{request.query.name   }}', 'ann'],
    ['{{\trequest.query.name\n}}', 'ann'],
    ['a{{request.query.name}}{{request.method}}b', 'aannGETb'],
    ['{{{request.query.name}}}', 'ann'],
    ['{"n":"{{{request.query.name}}}"}', '{"n":"ann"}'],
    ['{{ a {{request.query.name}}', '{{ a ann'],
    ['{{request.query.name}} {{ unclosed', 'ann {{ unclosed'],
    ['{{}}', ''],
    ['{{   }}', ''],
    ['}}{{request.query.name}}{{', '}}ann{{'],
    ['{{request.query.name}}}}', 'ann}}'],
    ['x{{{{request.query.name}}}}y', 'x{ann}y'],
  ])('%j → %j', (src, expected) => {
    expect(render(src, { req })).toBe(expected);
  });
});

describe('compileTemplate: names are data', () => {
  const protoNames = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];

  it.each(protoNames)('%s reaches no prototype in any namespace', (name) => {
    const src = [
      `{{request.query.${name}}}`,
      `{{request.headers.${name}}}`,
      `{{request.params.${name}}}`,
      `{{request.body.${name}}}`,
      `{{request.body.a.${name}}}`,
      `{{vars.${name}}}`,
      `{{endpoint.${name}}}`,
      `{{vars.r.headers.${name}}}`,
      `{{vars.r.body.${name}}}`,
      `{{${name}}}`,
      `{{request.${name}}}`,
    ].join('|');
    const ctx = { req: { body: '{"a":{}}' }, vars: { r: { status: 200, headers: {}, body: '{}' } } };
    expect(render(src, ctx)).toBe('||||||||||');
  });

  it('renders "" for a query parameter, header or JSON key named __proto__, constructor or prototype', () => {
    const req: Partial<RequestView> = {
      query: JSON.parse('{"__proto__":"q","constructor":"c"}'),
      headers: JSON.parse('{"__proto__":"h"}'),
      body: '{"__proto__":{"x":"j"}}',
    };
    expect(render('{{request.query.__proto__}}|{{request.query.constructor}}', { req })).toBe('|');
    expect(render('{{request.headers.__proto__}}', { req })).toBe('');
    expect(render('{{request.body.__proto__.x}}', { req })).toBe('');
    expect(render('{{#each request.body}}{{@key}}{{/each}}', { req })).toBe('');
    expect(compileTemplate('{{vars.__proto__}}')({ ...makeCtx(), vars: new Map([['__proto__', 'v']]) })).toBe('');
  });
});

describe('compileTemplate: code-looking input renders empty', () => {
  it.each([
    '{{7*7}}',
    '{{ constructor.constructor("return 4242")() }}',
    '{{process.env.PATH}}',
    '{{ this }}',
    '{{globalThis}}',
    '{{require("fs")}}',
    '{{`x`}}',
    '{{request.query.a + request.query.b}}',
    '{{#each items}}',
    '{{ "unterminated }}',
    '{{json}}',
    '{{json a b}}',
    '{{default request.query.z}}',
    '{{(request.method}}',
    '{{request.method)}}',
    '{{()}}',
    '{{$randomInt 1}}',
    '{{$randomInt a b}}',
    '{{$isoDate "tomorrow"}}',
    '{{$isoDate "+1 fortnight"}}',
  ])('%s → ""', (src) => {
    expect(render(src, { req: { method: 'GET', query: { a: '1', b: '2' } } })).toBe('');
  });
});

describe('compileTemplate: vars and endpoint storage', () => {
  const saved = {
    status: 201,
    headers: { 'content-type': 'application/json', 'x-id': '9' },
    body: '{"id":7,"o":{"k":[1]}}',
  };
  const o: CtxOptions = {
    vars: { greeting: 'hi', r: saved },
    storage: { last: 'ann', 'a.b': 'dotted' },
    projectStorage: { cart: 'full', last: 'project-ann' },
  };
  it.each([
    ['{{vars.greeting}}', 'hi'],
    ['[{{vars.greeting.status}}]', '[]'],
    ['[{{vars.nope}}]', '[]'],
    ['{{vars.r}}', '{"id":7,"o":{"k":[1]}}'],
    ['{{vars.r.status}}', '201'],
    ['{{vars.r.headers.X-ID}}', '9'],
    ['{{vars.r.headers.content-type}}', 'application/json'],
    ['[{{vars.r.headers.nope}}][{{vars.r.headers}}][{{vars.r.other}}]', '[][][]'],
    ['{{vars.r.body}}', '{"id":7,"o":{"k":[1]}}'],
    ['{{vars.r.body.id}}', '7'],
    ['{{vars.r.body.o.k}}', '[1]'],
    ['{{vars.r.body.o.k.0}}', '1'],
    ['{{endpoint.last}}', 'ann'],
    ['{{endpoint.a.b}}', 'dotted'],
    ['[{{endpoint.nope}}][{{endpoint}}]', '[][]'],
    ['{{project.cart}} {{project.last}} {{endpoint.last}}', 'full project-ann ann'],
    ['[{{project.nope}}][{{project}}]', '[][]'],
  ])('%s → %s', (src, expected) => {
    expect(render(src, o)).toBe(expected);
  });

  it('saved body paths are absent when the saved body is not JSON', () => {
    expect(render('[{{vars.r.body.a}}]', { vars: { r: { status: 500, headers: {}, body: 'oops' } } })).toBe('[]');
  });
});

describe('compileTemplate: generated values', () => {
  it('$uuid is fresh per use, $timestamp is integer ms, $isoDate is ISO', () => {
    expect(render('{{$uuid}} {{$uuid}}')).toBe(
      '00000000-0000-4000-8000-000000000001 00000000-0000-4000-8000-000000000002',
    );
    expect(render('{{$timestamp}}')).toBe(String(NOW));
    expect(render('{{ $isoDate }}')).toBe('2024-01-15T12:00:00.000Z');
  });

  it('$timestamp floors a fractional clock', () => {
    expect(compileTemplate('{{$timestamp}}')({ ...makeCtx(), now: () => 1234.9 })).toBe('1234');
  });

  it.each([
    ['"+1d"', '2024-01-16T12:00:00.000Z'],
    ['"-2h"', '2024-01-15T10:00:00.000Z'],
    ['"+30m"', '2024-01-15T12:30:00.000Z'],
    ['"+10s"', '2024-01-15T12:00:10.000Z'],
    ['"1d"', '2024-01-16T12:00:00.000Z'],
    ['" -1d "', '2024-01-14T12:00:00.000Z'],
    ['request.query.off', '2024-01-22T12:00:00.000Z'],
    ['"+999999999999d"', ''],
  ])('$isoDate %s', (arg, expected) => {
    expect(render(`{{$isoDate ${arg}}}`, { req: { query: { off: '+7d' } } })).toBe(expected);
  });

  it('$randomInt is inclusive and uses ctx.rng', () => {
    expect(render('{{$randomInt 1 6}}', { rng: [0] })).toBe('1');
    expect(render('{{$randomInt 1 6}}', { rng: [0.999999] })).toBe('6');
    expect(render('{{$randomInt 1 6}}', { rng: [0.5] })).toBe('4');
    expect(render('{{$randomInt -5 -5}}')).toBe('-5');
    expect(render('{{$randomInt 6 1}}', { rng: [0] })).toBe('1');
    expect(
      render('{{$randomInt request.query.a request.query.b}}', { rng: [0.99], req: { query: { a: '10', b: '20' } } }),
    ).toBe('20');
    expect(render('[{{$randomInt request.query.a 5}}]', { req: { query: { a: 'x' } } })).toBe('[]');
    const t = compileTemplate('{{$randomInt 0 9}}');
    const seen = new Set<string>();
    for (let i = 0; i < 10; i++) seen.add(t(makeCtx({ rng: [i / 10] })));
    expect([...seen].sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
  });

  it('is deterministic for an injected context', () => {
    const t = compileTemplate('{{$uuid}}|{{$timestamp}}|{{$isoDate "+1h"}}|{{$randomInt 1 100}}');
    expect(t(makeCtx({ rng: [0.25] }))).toBe(t(makeCtx({ rng: [0.25] })));
  });
});

describe('compileTemplate: helpers', () => {
  const req: Partial<RequestView> = {
    query: { q: 'say "hi"\\ \n now', e: '' },
    body: '{"o":{"a":"x"}}',
  };
  it.each([
    ['"{{json request.query.q}}"', '"say \\"hi\\"\\\\ \\n now"'],
    ['{{json request.body.o}}', '{\\"a\\":\\"x\\"}'],
    ['[{{json request.query.nope}}]', '[]'],
    ['{{json "</tag>\\u"}}', '</tag>\\\\u'],
    ['{{default request.query.nope "fallback"}}', 'fallback'],
    ['{{default request.query.e "fallback"}}', 'fallback'],
    ['{{default request.query.q "fallback"}}', 'say "hi"\\ \n now'],
    ['{{default request.query.nope request.body.o.a}}', 'x'],
    ['{{default request.query.nope 42}}', '42'],
    ['{{default "" "b"}}', 'b'],
    ['{{default "a" "b"}}', 'a'],
    ['{{ default request.query.nope "with \\"quotes\\" and \\\\" }}', 'with "quotes" and \\'],
    ['{{json (default request.query.nope "a\\"b")}}', 'a\\"b'],
    ['{{default (json request.query.nope) "none"}}', 'none'],
    ['{{json $uuid}}', '00000000-0000-4000-8000-000000000001'],
    ['{{json ($isoDate "+1d")}}', '2024-01-16T12:00:00.000Z'],
  ])('%s → %s', (src, expected) => {
    expect(render(src, { req })).toBe(expected);
  });

  it('json output is safe inside a JSON string', () => {
    const t = compileTemplate('{"q":"{{json request.query.q}}"}');
    for (const q of ['"', '\\', '\n', '"}, "admin": true, "x": "', '\u2028', '\u0000', 'ok']) {
      expect(JSON.parse(t(makeCtx({ req: { query: { q } } })))).toEqual({ q });
    }
  });
});
