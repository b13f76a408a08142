import { describe, expect, it } from 'vitest';
import type { RequestView } from '../types.js';
import { compileContract } from './compile.js';
import { requestViolations } from './request.js';

const param = (
  name: string,
  place: string,
  style: string | undefined,
  explode: boolean | undefined,
  schema: unknown,
) => ({
  name,
  in: place,
  ...(style ? { style } : {}),
  ...(explode !== undefined ? { explode } : {}),
  schema,
});
const ints = { type: 'array', items: { type: 'integer' } };

const contract = compileContract('openapi-3.0', {
  openapi: '3.0.3',
  paths: {
    '/s/{ids}': {
      get: {
        parameters: [
          { name: 'ids', in: 'path', required: true, schema: ints },
          param('form', 'query', 'form', true, ints),
          param('csv', 'query', 'form', false, ints),
          param('space', 'query', 'spaceDelimited', false, ints),
          param('pipe', 'query', 'pipeDelimited', false, ints),
          param('X-Ids', 'header', 'simple', false, ints),
          param('flag', 'query', undefined, undefined, { type: 'boolean' }),
          param('n', 'cookie', undefined, undefined, { type: 'number', maximum: 10 }),
        ],
        responses: { 200: { description: 'ok' } },
      },
    },
  },
});

function view(path: string, rawQuery: string, headers: Record<string, string> = {}): RequestView {
  const h = Object.assign(Object.create(null), headers);
  return {
    method: 'GET',
    path,
    rawQuery,
    query: Object.fromEntries(new URLSearchParams(rawQuery)),
    headers: h,
    params: {},
    body: '',
    header: (n) => h[n],
    queryParam: (n) => new URLSearchParams(rawQuery).get(n) ?? undefined,
  };
}

function check(path: string, rawQuery: string, headers?: Record<string, string>) {
  const found = contract.match('GET', path);
  if (!found) throw new Error('no operation');
  return requestViolations(found.op, found.params, view(path, rawQuery, headers)).map((v) => `${v.in}:${v.name}`);
}

describe('parameter styles', () => {
  it('reads every style of a list and types its items', () => {
    expect(
      check('/s/1,2', 'form=1&form=2&csv=1,2&space=1%202&pipe=1|2&flag=true', { 'x-ids': '3,4', cookie: 'n=5' }),
    ).toEqual([]);
  });

  it('says which parameter of which location is wrong', () => {
    expect(
      check('/s/1,x', 'form=1&form=a&csv=1,b&space=1%20c&pipe=1|d&flag=yes', { 'x-ids': '3,e', cookie: 'n=50' }).sort(),
    ).toEqual([
      'cookie:n',
      'header:X-Ids',
      'path:ids',
      'query:csv',
      'query:flag',
      'query:form',
      'query:pipe',
      'query:space',
    ]);
  });
});
