import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AppError } from '../domain/errors.js';
import { exampleFromSchema, loadOpenApiDocument, parseYaml, planImport, toMockPath } from './openapi-import.js';

const doc = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  openapi: '3.0.3',
  info: { title: 't', version: '1' },
  paths,
  ...extra,
});
const ok = (content?: Record<string, unknown>, code = '200') => ({
  responses: { [code]: { description: 'ok', ...(content ? { content } : {}) } },
});

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

describe('toMockPath', () => {
  it.each([
    ['/pets', '/pets'],
    ['/pets/{petId}', '/pets/:petId'],
    ['/a/{x}/b/{y}', '/a/:x/b/:y'],
    ['/files/{name}.{ext}', '/files/:name_ext'],
    ['/v{version}/items', '/:version/items'],
    ['/users/{user-id}', '/users/:user_id'],
    ['/a/{id}/b/{id}', '/a/:id/b/:id2'],
    ['/', '/'],
    ['/odd/:literal', '/odd/%3Aliteral'],
    ['/star/*', '/star/%2A'],
  ])('%s → %s', (input, expected) => {
    expect(toMockPath(input)).toEqual({ path: expected });
  });

  it('reports what cannot be a mock path', () => {
    expect(toMockPath('pets')).toHaveProperty('error');
    expect(toMockPath('/a//b')).toHaveProperty('error');
  });
});

describe('exampleFromSchema', () => {
  it('honours example, default, const and enum first', () => {
    expect(exampleFromSchema({ type: 'string', example: 'rex' })).toBe('rex');
    expect(exampleFromSchema({ type: 'string', examples: ['a', 'b'] })).toBe('a');
    expect(exampleFromSchema({ type: 'integer', default: 7 })).toBe(7);
    expect(exampleFromSchema({ const: 'fixed' })).toBe('fixed');
    expect(exampleFromSchema({ type: 'string', enum: ['available', 'sold'] })).toBe('available');
  });

  it('generates values by type and format', () => {
    expect(exampleFromSchema({ type: 'string' })).toBe('string');
    expect(exampleFromSchema({ type: 'string', format: 'date-time' })).toBe('2024-01-01T00:00:00Z');
    expect(exampleFromSchema({ type: 'string', format: 'uuid' })).toMatch(/^[0-9a-f-]{36}$/);
    expect(exampleFromSchema({ type: 'string', format: 'email' })).toBe('user@example.com');
    expect(exampleFromSchema({ type: 'integer' })).toBe(0);
    expect(exampleFromSchema({ type: 'integer', minimum: 5 })).toBe(5);
    expect(exampleFromSchema({ type: 'number', minimum: 1.5 })).toBe(1.5);
    expect(exampleFromSchema({ type: 'integer', maximum: -3 })).toBe(-3);
    expect(exampleFromSchema({ type: 'boolean' })).toBe(true);
    expect(exampleFromSchema({ type: ['null', 'string'] })).toBe('string');
    expect(exampleFromSchema({ type: 'null' })).toBe(null);
  });

  it('builds objects and arrays, skipping write-only properties', () => {
    const schema = {
      type: 'object',
      properties: {
        id: { type: 'integer', format: 'int64', readOnly: true },
        password: { type: 'string', writeOnly: true },
        tags: { type: 'array', items: { type: 'string', example: 'cute' } },
        owner: { properties: { name: { type: 'string', default: 'Ann' } } },
      },
    };
    expect(exampleFromSchema(schema)).toEqual({ id: 0, tags: ['cute'], owner: { name: 'Ann' } });
  });

  it('merges allOf and takes the first of oneOf/anyOf', () => {
    expect(
      exampleFromSchema({
        allOf: [{ type: 'object', properties: { a: { type: 'integer' } } }, { properties: { b: { type: 'boolean' } } }],
      }),
    ).toEqual({ a: 0, b: true });
    expect(exampleFromSchema({ oneOf: [{ type: 'null' }, { type: 'string', format: 'date' }] })).toBe('2024-01-01');
    expect(exampleFromSchema({ anyOf: [{ type: 'integer' }, { type: 'string' }] })).toBe(0);
  });

  it('ends on circular schemas and is deterministic', () => {
    const node: Record<string, unknown> = { type: 'object', properties: { name: { type: 'string' } } };
    (node.properties as Record<string, unknown>).children = { type: 'array', items: node };
    const a = exampleFromSchema(node);
    expect(JSON.stringify(a)).toBe(JSON.stringify(exampleFromSchema(node)));
    let depth = 0;
    let cur = a as { children?: unknown[] };
    while (cur.children && cur.children.length > 0 && depth < 100) {
      cur = cur.children[0] as { children?: unknown[] };
      depth++;
    }
    expect(depth).toBeGreaterThan(0);
    expect(depth).toBeLessThan(10);
  });

  it('caps the size of wide and deep schemas', () => {
    const props: Record<string, unknown> = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, {}]));
    const wide: Record<string, unknown> = { type: 'object', properties: props };
    for (const k of Object.keys(props)) props[k] = wide;
    const text = JSON.stringify(exampleFromSchema(wide));
    expect(text.length).toBeLessThan(200_000);
  });

  it('answers null for what it cannot read', () => {
    expect(exampleFromSchema(undefined)).toBe(null);
    expect(exampleFromSchema({ $ref: 'http://example.com/x.json' })).toBe(null);
    expect(exampleFromSchema({})).toBe(null);
  });
});

describe('planImport', () => {
  it('takes status, body and content type from the first 2xx response', () => {
    const plan = planImport(
      doc({
        '/a': {
          get: {
            responses: {
              '404': { description: 'no' },
              '201': { description: 'made', content: { 'application/json': { example: { made: true } } } },
              '200': {
                description: 'ok',
                content: {
                  'application/xml': { example: '<a/>' },
                  'application/json': { examples: { one: { value: { n: 1 } }, two: { value: { n: 2 } } } },
                },
              },
            },
          },
          delete: ok(undefined, '204'),
        },
        '/b/{id}': {
          get: ok({ 'text/plain': { schema: { type: 'string', example: 'hello' } } }),
          post: ok({
            'application/problem+json': { schema: { type: 'object', properties: { x: { type: 'integer' } } } },
          }),
          put: ok({ '*/*': { example: { any: 1 } } }),
          patch: { responses: { default: { description: 'd', content: { 'application/json': { example: [1] } } } } },
        },
      }),
    );
    expect(plan.skipped).toEqual([]);
    const byKey = Object.fromEntries(plan.endpoints.map((e) => [`${e.method} ${e.path}`, e]));
    expect(byKey['GET /a']).toMatchObject({ statusCode: 200, contentType: 'application/json' });
    expect(JSON.parse(byKey['GET /a'].responseBody)).toEqual({ n: 1 });
    // no content: no body and no content type (docs/interop.md)
    expect(byKey['DELETE /a']).toMatchObject({ statusCode: 204, responseBody: '', contentType: '' });
    expect(byKey['GET /b/:id']).toMatchObject({ statusCode: 200, responseBody: 'hello', contentType: 'text/plain' });
    expect(byKey['POST /b/:id']).toMatchObject({ contentType: 'application/problem+json' });
    expect(JSON.parse(byKey['POST /b/:id'].responseBody)).toEqual({ x: 0 });
    expect(byKey['PUT /b/:id'].contentType).toBe('application/json');
    expect(byKey['PATCH /b/:id']).toMatchObject({ statusCode: 200 });
    expect(JSON.parse(byKey['PATCH /b/:id'].responseBody)).toEqual([1]);
  });

  it('serializes JSON strings as JSON and keeps JSON text as is', () => {
    const plan = planImport(
      doc({
        '/s': { get: ok({ 'application/json': { example: 'plain' } }) },
        '/t': { get: ok({ 'application/json': { example: '{"already": "json"}' } }) },
      }),
    );
    expect(plan.endpoints.map((e) => e.responseBody)).toEqual(['"plain"', '{"already": "json"}']);
  });

  it('skips what cannot become an endpoint, with a reason', () => {
    const plan = planImport(
      doc({
        '/a/{x}': { get: ok() },
        '/a/{y}': { get: ok(), trace: ok() },
        '/bad//path': { get: ok() },
        '/ct': { get: ok({ 'text/plain\r\nx-evil: 1': { example: 'x' } }) },
      }),
    );
    expect(plan.endpoints.map((e) => `${e.method} ${e.path}`)).toEqual(['GET /a/:x']);
    expect(plan.skipped).toEqual([
      { method: 'GET', path: '/a/{y}', reason: 'same route as GET /a/{x}' },
      { method: 'TRACE', path: '/a/{y}', reason: expect.stringContaining('TRACE') },
      { method: 'GET', path: '/bad//path', reason: expect.stringContaining('empty segments') },
      { method: 'GET', path: '/ct', reason: expect.stringContaining('Content-Type') },
    ]);
  });
});

describe('loadOpenApiDocument', () => {
  it('dereferences internal $refs without changing the input', async () => {
    const input = doc(
      { '/p': { get: ok({ 'application/json': { schema: { $ref: '#/components/schemas/P' } } }) } },
      { components: { schemas: { P: { type: 'object', properties: { id: { type: 'integer' } } } } } },
    );
    const before = JSON.stringify(input);
    const out = await loadOpenApiDocument(input);
    expect(JSON.stringify(input)).toBe(before);
    expect(out.swagger).toBe(false);
    expect(planImport(out.doc).endpoints[0].responseBody).toBe(JSON.stringify({ id: 0 }, null, 2));
  });

  it('validates off the main thread: timers keep firing meanwhile', async () => {
    let fired = 0;
    const timer = setInterval(() => fired++, 1);
    try {
      await loadOpenApiDocument(doc({ '/a': { get: ok({ 'application/json': { schema: { type: 'string' } } }) } }));
    } finally {
      clearInterval(timer);
    }
    expect(fired).toBeGreaterThan(0);
  });

  it('converts Swagger 2.0 to OpenAPI 3.0 in the worker, examples, $refs and produces included', async () => {
    const input = {
      swagger: '2.0',
      info: { title: 't', version: '1' },
      basePath: '/v1',
      produces: ['application/json'],
      paths: {
        '/pets/{id}': {
          parameters: [{ name: 'id', in: 'path', required: true, type: 'string' }],
          get: { responses: { 200: { description: 'ok', schema: { $ref: '#/definitions/Pet' } } } },
          delete: { responses: { 204: { description: 'gone' } } },
        },
      },
      definitions: {
        Pet: { type: 'object', properties: { id: { type: 'integer' }, tag: { type: 'string', enum: ['dog'] } } },
      },
    };
    const out = await loadOpenApiDocument(input);
    expect(out.swagger).toBe(true);
    expect(out.doc.openapi).toMatch(/^3\.0/);
    const plan = planImport(out.doc);
    expect(plan.endpoints.map((e) => [e.method, e.path, e.statusCode, e.contentType])).toEqual([
      ['GET', '/pets/:id', 200, 'application/json'],
      ['DELETE', '/pets/:id', 204, ''],
    ]);
    expect(JSON.parse(plan.endpoints[0].responseBody)).toEqual({ id: 0, tag: 'dog' });
    const swagger3 = await rejection(
      loadOpenApiDocument({ swagger: '3.0', info: { title: 't', version: '1' }, paths: {} }),
    );
    expect(swagger3.details?.[0]).toMatchObject({
      path: '/swagger',
      message: expect.stringContaining('swagger "2.0"'),
    });
  });

  it('rejects what is not an OpenAPI 3.0/3.1 or Swagger 2.0 document', async () => {
    expect((await rejection(loadOpenApiDocument([]))).code).toBe('validation_failed');
    const bad = await rejection(loadOpenApiDocument({ openapi: '3.0.0', info: { title: 't' }, paths: {} }));
    expect(bad.status).toBe(400);
    expect(bad.details?.[0].message).toMatch(/version/);
    const missing = await rejection(
      loadOpenApiDocument(doc({ '/x': { get: ok({ 'application/json': { schema: { $ref: '#/nope' } } }) } })),
    );
    expect(missing.details?.[0].message).toMatch(/nope/);
  });

  it('never resolves external references: the first one is named in the error (no file read, no connection)', async () => {
    let connections = 0;
    const server = http.createServer((_req, res) => res.end('{"type":"string"}'));
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const err = await rejection(
        loadOpenApiDocument(
          doc({
            '/x': {
              get: ok({
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      remote: { $ref: `http://127.0.0.1:${port}/schema.json` },
                      file: { $ref: 'file:///etc/passwd' },
                      relative: { $ref: 'other.yaml#/Thing' },
                    },
                  },
                },
              }),
            },
          }),
        ),
      );
      expect(err.code).toBe('validation_failed');
      expect(err.message).toContain(`http://127.0.0.1:${port}/schema.json`);
      expect(err.details?.[0]).toMatchObject({
        path: '/paths/~1x/get/responses/200/content/application~1json/schema/properties/remote/$ref',
        message: expect.stringContaining('bundle'),
      });
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });
});

describe('parseYaml', () => {
  it('parses YAML and reports errors as validation_failed', () => {
    expect(parseYaml('a: 1\nb: [x, y]\n')).toEqual({ a: 1, b: ['x', 'y'] });
    expect(() => parseYaml('a: [1\n')).toThrow(AppError);
    expect(() => parseYaml('a: 1\na: 2\n')).toThrow(/YAML/);
  });

  it('refuses alias bombs', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 12; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      lines.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    expect(() => parseYaml(lines.join('\n'))).toThrow(AppError);
  });
});
