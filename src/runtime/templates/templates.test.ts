import { beforeAll, describe, expect, it } from 'vitest';
import { loadFaker } from '../faker.js';
import {
  CapExceeded,
  compileTemplate,
  listedCollections,
  MAX_ITERATIONS,
  templateProblem,
  usesFaker,
} from '../template.js';
import type { EvalContext } from '../types.js';
import { exampleContext } from './example-context.js';
import { HELPER_TABLE, HELPERS } from './helpers.js';

beforeAll(loadFaker);

/** The example context with a JSON body, query, headers and extra fields. */
function ctx(
  over: {
    body?: unknown;
    query?: Record<string, string>;
    headers?: Record<string, string>;
    extra?: Partial<EvalContext>;
  } = {},
): EvalContext {
  const base = exampleContext();
  const body = over.body === undefined ? '' : JSON.stringify(over.body);
  const query = Object.assign(Object.create(null), over.query);
  const headers = Object.assign(Object.create(null), over.headers);
  const parsed = body === '' ? { ok: false as const } : { ok: true as const, value: JSON.parse(body) };
  return {
    ...base,
    req: {
      ...base.req,
      body,
      query,
      headers,
      header: (n) => (Object.hasOwn(headers, n) ? headers[n] : undefined),
      queryParam: (n) => (Object.hasOwn(query, n) ? query[n] : undefined),
    },
    json: () => parsed,
    ...over.extra,
  };
}

const render = (src: string, c: EvalContext = ctx()) => compileTemplate(src)(c);

describe('the helper table', () => {
  it.each(HELPER_TABLE.map((h) => [h.name, h] as const))('%s: its example renders its output', (_n, h) => {
    expect(templateProblem(h.example)).toBeNull();
    const out = compileTemplate(h.example)(exampleContext());
    if (h.output !== undefined) expect(out).toBe(h.output);
    else expect(h.random).toBe(true);
    if (h.random) expect(out).not.toBe('');
  });

  it('every contract helper name is there', () => {
    const names =
      `eq neq gt gte lt lte and or not includes isEmpty add subtract multiply divide modulo abs ceil floor round
      toFixed min max sum lowercase uppercase capitalize trim split join concat substr replace padStart padEnd startsWith
      endsWith regexMatch regexExtract base64 base64Decode urlEncode urlDecode stringify parseJson jsonPath array len first
      last slice sort reverse filter pluck keys values object merge oneOf someOf now dateFormat dateAdd $isoDate $timestamp
      randomInt randomFloat randomValue $uuid uuid faker setVar getVar jwtPayload jwtHeader json default
      if unless each with repeat`.split(/\s+/);
    expect(names.filter((n) => !HELPERS.has(n))).toEqual([]);
  });
});

describe('blocks', () => {
  const body = {
    items: [
      { sku: 'A', price: 2, qty: 3 },
      { sku: 'B', price: 5, qty: 1 },
    ],
    user: { name: 'Ada', role: 'admin' },
    empty: [],
  };
  it.each([
    ['{{#if request.body.user}}y{{/if}}', 'y'],
    ['{{#if request.body.empty}}y{{else}}n{{/if}}', 'n'],
    [
      '{{#if (eq request.body.user.role "x")}}x{{else if (eq request.body.user.role "admin")}}admin{{else}}other{{/if}}',
      'admin',
    ],
    ["{{#if (eq request.body.user.role 'guest')}}g{{else if false}}f{{else}}else{{/if}}", 'else'],
    ['{{#unless request.body.nope}}u{{/unless}}', 'u'],
    ['{{#each request.body.items}}{{sku}}:{{multiply price qty}}{{#unless @last}},{{/unless}}{{/each}}', 'A:6,B:5'],
    ['{{#each request.body.items}}{{@index}}{{@first}}{{@last}};{{/each}}', '0truefalse;1falsetrue;'],
    ['{{#each request.body.user}}{{@key}}={{this}} {{/each}}', 'name=Ada role=admin '],
    ['{{#each request.body.empty}}x{{else}}none{{/each}}', 'none'],
    ['{{#each request.body.items as |item i|}}{{i}}{{item.sku}}{{/each}}', '0A1B'],
    ['{{#each request.body.items}}{{../request.body.user.name}}{{request.method}}{{/each}}', 'AdaPOSTAdaPOST'],
    ['{{#each request.body.items}}{{#each (array 1 2)}}{{../sku}}{{this}}{{/each}}{{/each}}', 'A1A2B1B2'],
    ['{{#with request.body.user}}{{name}} is {{role}}{{/with}}', 'Ada is admin'],
    ['{{#with request.body.nope}}x{{else}}no user{{/with}}', 'no user'],
    ['[{{#repeat 3}}{{@index}}{{/repeat}}]', '[0,1,2]'],
    ['{{#repeat 2 comma=false}}ab{{/repeat}}', 'abab'],
    ['{{sum (pluck request.body.items "price")}}', '7'],
    ['{{#each (sort request.body.items "price" "desc")}}{{sku}}{{/each}}', 'BA'],
    ['{{len (filter request.body.items (object sku="B"))}}', '1'],
    ['{{#request.body.user}}{{name}}{{/request.body.user}}', 'Ada'],
    ['{{^request.body.empty}}empty{{/request.body.empty}}', 'empty'],
    ['{{setVar "total" (add 1 2)}}{{@total}}-{{getVar "total"}}', '3-3'],
    ['{{!-- a comment with }} inside --}}ok{{! short }}', 'ok'],
  ])('%s → %s', (src, expected) => {
    expect(templateProblem(src)).toBeNull();
    expect(render(src, ctx({ body }))).toBe(expected);
  });

  it('whitespace control and standalone lines', () => {
    expect(render('a  {{~ "b" ~}}  c')).toBe('abc');
    expect(render('[\n  {{#each (array 1 2)}}\n  {{this}}\n  {{/each}}\n]')).toBe('[\n  1\n  2\n]');
    expect(render('{{#if true}}\nyes\n{{else}}\nno\n{{/if}}\n')).toBe('yes\n');
  });

  it('a backslash before {{ keeps the tag as text, as Handlebars does; two keep one backslash', () => {
    expect(render('a \\{{request.method}} {{request.method}}')).toBe('a {{request.method}} POST');
    expect(render('\\{{#each x}}\\{{/each}}')).toBe('{{#each x}}{{/each}}');
    expect(render('\\\\{{request.method}}')).toBe('\\POST');
  });

  it('strings in double, single and escaped double quotes, numbers, booleans, null, hash arguments', () => {
    expect(render(`{"a":"{{uppercase 'x'}}","b":"{{uppercase "y"}}","c":"{{uppercase \\"z\\"}}"}`)).toBe(
      '{"a":"X","b":"Y","c":"Z"}',
    );
    expect(
      render('{{add 1.5 -0.5}} {{not true}} {{default null "n"}} {{stringify (object a=1 b="x" c=true d=null)}}'),
    ).toBe('1 false n {"a":1,"b":"x","c":true,"d":null}');
    expect(render('{{faker "number.int" {"min":5,"max":5}}} {{faker "number.int" min=7 max=7}}')).toBe('5 7');
    expect(render('{{uppercase (concat (lowercase "A") (substr "xyz" 1))}}')).toBe('AYZ');
  });

  it('reads cookies, jwt claims, config and collection items', () => {
    const token = `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from('{"sub":"u1","role":"admin"}').toString('base64url')}.sig`;
    const c = ctx({
      headers: { cookie: 'sid=abc; theme=dark%20blue', authorization: `Bearer ${token}` },
      extra: {
        config: new Map([['baseUrl', 'https://api.example.test']]),
        collectionItems: new Map([
          [
            'users',
            [
              { id: '1', name: 'Ann' },
              { id: '2', name: 'Bo' },
            ],
          ],
        ]),
      },
    });
    expect(render('{{request.cookies.sid}}|{{cookie "theme"}}|{{jwtPayload "role"}}|{{jwtHeader "alg"}}', c)).toBe(
      'abc|dark blue|admin|HS256',
    );
    expect(render('{{#if (eq (jwtPayload "role") "admin")}}isAdmin{{/if}}', c)).toBe('isAdmin');
    expect(render('{{config.baseUrl}}/x{{config.nope}}', c)).toBe('https://api.example.test/x');
    expect(render('{{#each collection.users.items}}{{name}};{{/each}}{{len collection.users.items}}', c)).toBe(
      'Ann;Bo;2',
    );
    expect(listedCollections('{{#each collection.users.items}}{{/each}}')).toEqual(['users']);
  });
});

describe('caps and names', () => {
  it('a loop stops at the iteration cap, nested loops share it', () => {
    const out = render('{{#repeat 100000000 comma=false}}x{{/repeat}}');
    expect(out.length).toBe(MAX_ITERATIONS);
    const nested = render('{{#repeat 100000 comma=false}}{{#repeat 100000 comma=false}}y{{/repeat}}{{/repeat}}');
    expect(nested.length).toBeLessThanOrEqual(MAX_ITERATIONS);
  });

  it('stops as soon as the output passes the cap', () => {
    const c = { ...ctx(), renderLimit: 1000 };
    expect(() => render('{{#repeat 5000 comma=false}}0123456789{{/repeat}}', c)).toThrow(CapExceeded);
    expect(() => render('{{padStart "x" 100000000}}', c)).toThrow(CapExceeded);
    expect(() => render('{{randomValue length=100000000}}', c)).toThrow(CapExceeded);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('%s renders "" wherever it is in a path', (name) => {
    const c = ctx({ body: JSON.parse(`{"${name}":{"x":1},"a":{}}`) });
    for (const src of [
      `{{request.body.${name}}}`,
      `{{request.body.a.${name}}}`,
      `{{lookup request.body "${name}"}}`,
      `{{#each request.body}}{{${name}}}{{/each}}`,
      `{{#with request.body.a}}{{this.${name}}}{{/with}}`,
      `{{jsonPath request.body "$.${name}.x"}}`,
      `{{stringify (object ${name}=1)}}`,
      `{{setVar "${name}" 1}}{{@${name}}}`,
    ])
      expect(render(src, c).replace('{}', '')).toBe('');
  });

  it('reports parse errors with line and column', () => {
    expect(templateProblem('{\n  "a": {{#each items}}x\n}')).toMatchObject({
      line: 2,
      column: 8,
      message: expect.stringContaining('never closed'),
    });
    expect(templateProblem('ok {{/each}}')).toMatchObject({
      line: 1,
      column: 4,
      message: expect.stringContaining('closes no block'),
    });
    expect(templateProblem('{{#if a}}{{/each}}')).toMatchObject({ message: expect.stringContaining('closes') });
    expect(templateProblem('{{else}}')).not.toBeNull();
    // code-looking or broken expressions are data: they save, and render ""
    expect(templateProblem('{{ "unterminated }}')).toBeNull();
    expect(templateProblem('{{ constructor.constructor("return 1")() }}')).toBeNull();
    expect(render('[{{ "unterminated }}][{{ a + b }}]')).toBe('[][]');
    expect(templateProblem('{{nope.helper}} {{unknownHelper 1 2}}')).toBeNull();
    expect(render('{{unknownHelper 1 2}}')).toBe('');
  });

  it('finds faker anywhere, blocks and subexpressions included', () => {
    expect(usesFaker("{{#each (array 1)}}{{faker 'person.firstName'}}{{/each}}")).toBe(true);
    expect(usesFaker('{{#if x}}{{upper (faker "lorem.word")}}{{/if}}')).toBe(true);
    expect(usesFaker('{{uuid}}')).toBe(false);
  });
});
