/**
 * OpenAPI import over HTTP: the official Petstore 3.0 example (YAML), a 3.1 JSON document, $refs,
 * collisions (?onConflict=fail|skip|replace), invalid documents, limits and tenancy.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { ROOT, request, startTestServer, type TestServer } from '../helpers/server.js';

/** A Petstore pet as generated on import: realistic strings by property name (docs/stateful-mocks.md), not "string". */
const PET = {
  id: 0,
  name: expect.stringMatching(/^(?!string$)\S.*$/),
  tag: expect.stringMatching(/^(?!string$)\S+$/),
};

const PETSTORE = fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'petstore.yaml'), 'utf8');

/** An OpenAPI 3.1 document with JSON Schema 2020-12 features and $refs at several levels. */
const SPEC_31 = {
  openapi: '3.1.0',
  info: { title: 'Orders', version: '2.0.0' },
  webhooks: { ping: { post: { responses: { '200': { description: 'ok' } } } } },
  paths: {
    '/orders': {
      get: {
        responses: {
          '2XX': {
            description: 'orders',
            content: {
              'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Order' } } },
            },
          },
        },
      },
      post: { responses: { '201': { $ref: '#/components/responses/Created' } } },
    },
    '/orders/{orderId}/lines/{line-no}': { $ref: '#/components/pathItems/Line' },
    '/health': {
      get: {
        responses: {
          '200': {
            description: 'text',
            content: {
              'text/plain': { examples: { up: { summary: 'up', value: 'UP' } } },
              'application/xml': { example: '<up/>' },
            },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Order: {
        type: 'object',
        properties: {
          id: { type: 'string', format: 'uuid' },
          status: { enum: ['open', 'closed'] },
          note: { type: ['string', 'null'], examples: ['leave at door'] },
          total: { type: 'number', minimum: 1 },
          kind: { const: 'order' },
        },
      },
    },
    responses: {
      Created: {
        description: 'created',
        content: { 'application/json': { example: { id: 'o-1', created: true } } },
      },
    },
    pathItems: {
      Line: {
        get: {
          parameters: [
            { name: 'orderId', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'line-no', in: 'path', required: true, schema: { type: 'integer' } },
          ],
          responses: {
            '200': {
              description: 'line',
              content: {
                'application/json': {
                  schema: { type: 'object', properties: { sku: { type: 'string', default: 'SKU-1' } } },
                },
              },
            },
          },
        },
      },
    },
  },
};

for (const dialect of DIALECTS) {
  describe(`OpenAPI import (${dialect})`, () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startTestServer(dialect);
    });
    afterAll(async () => {
      await s?.close();
    });

    const importDoc = (token: string, pid: string, body: string, type: string, query = '') =>
      s.client.api('POST', `/api/projects/${pid}/import/openapi${query}`, body, token, { 'content-type': type });

    it('imports the Petstore 3.0 example from YAML and serves it', async () => {
      const u = await s.client.user();
      const p = await s.client.project(u.token);
      const r = await importDoc(u.token, p.id, PETSTORE, 'application/yaml');
      expect(r.status).toBe(200);
      expect(r.json.skipped).toEqual([]);
      expect(r.json.replaced).toEqual([]);
      const made = r.json.created.map((e: { method: string; path: string; statusCode: number }) => [
        e.method,
        e.path,
        e.statusCode,
      ]);
      expect(made).toEqual([
        ['GET', '/pets', 200],
        ['POST', '/pets', 201],
        ['GET', '/pets/:petId', 200],
      ]);
      expect(r.json.format).toBe('openapi');
      for (const e of r.json.created) {
        // POST /pets answers 201 with no content: no body, no content type (docs/interop.md)
        expect(e).toMatchObject({ projectId: p.id, contentType: e.method === 'POST' ? '' : 'application/json' });
        expect(e.id).toEqual(expect.any(String));
      }
      const list = await s.client.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token);
      expect(list.json).toHaveLength(3);

      const pets = await s.client.mock(p.id, 'GET', '/pets', { query: 'limit=10' });
      expect(pets.status).toBe(200);
      expect(pets.headers.get('content-type')).toBe('application/json');
      expect(pets.json).toEqual([PET]);
      const one = await s.client.mock(p.id, 'GET', '/pets/42');
      expect(one.status).toBe(200);
      expect(one.json).toEqual(PET);
      const created = await s.client.mock(p.id, 'POST', '/pets', { body: '{"name":"rex"}' });
      expect(created.status).toBe(201);
      expect(created.text).toBe('');
      expect(created.headers.get('content-type')).toBeNull();
      expect((await s.client.mock(p.id, 'DELETE', '/pets/42')).status).toBe(404);
    });

    it.each(['application/x-yaml', 'text/yaml; charset=utf-8', 'application/vnd.oai.openapi'])(
      'accepts YAML as %s',
      async (type) => {
        const u = await s.client.user();
        const p = await s.client.project(u.token);
        const r = await importDoc(u.token, p.id, PETSTORE, type);
        expect(r.status).toBe(200);
        expect(r.json.created).toHaveLength(3);
      },
    );

    it('imports an OpenAPI 3.1 JSON document, resolving $refs in schemas, responses and path items', async () => {
      const u = await s.client.user();
      const p = await s.client.project(u.token);
      const r = await s.client.api('POST', `/api/projects/${p.id}/import/openapi`, SPEC_31, u.token);
      expect(r.status).toBe(200);
      expect(r.json.skipped).toEqual([]);
      const byRoute = Object.fromEntries(
        r.json.created.map((e: { method: string; path: string }) => [`${e.method} ${e.path}`, e]),
      );
      expect(Object.keys(byRoute).sort()).toEqual([
        'GET /health',
        'GET /orders',
        'GET /orders/:orderId/lines/:line_no',
        'POST /orders',
      ]);
      expect(byRoute['GET /health']).toMatchObject({ contentType: 'text/plain', responseBody: 'UP' });
      expect(byRoute['POST /orders']).toMatchObject({ statusCode: 201 });

      const orders = await s.client.mock(p.id, 'GET', '/orders');
      expect(orders.status).toBe(200);
      expect(orders.json).toEqual([
        { id: '3fa85f64-5717-4562-b3fc-2c963f66afa6', status: 'open', note: 'leave at door', total: 1, kind: 'order' },
      ]);
      const made = await s.client.mock(p.id, 'POST', '/orders');
      expect(made.status).toBe(201);
      expect(made.json).toEqual({ id: 'o-1', created: true });
      const line = await s.client.mock(p.id, 'GET', '/orders/7/lines/3');
      expect(line.json).toEqual({ sku: 'SKU-1' });
    });

    it('fails on collisions by default: 409 listing them, nothing created', async () => {
      const u = await s.client.user();
      const p = await s.client.project(u.token);
      const mine = await s.client.endpoint(u.token, p.id, { method: 'GET', path: '/pets/:id', responseBody: 'mine' });
      const r = await importDoc(u.token, p.id, PETSTORE, 'application/yaml');
      expect(r.status).toBe(409);
      expect(r.json.error.code).toBe('conflict');
      expect(r.json.error.details).toEqual([
        { path: '/paths/~1pets~1{petId}/get', message: expect.stringContaining(mine.id) },
      ]);
      const list = await s.client.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token);
      expect(list.json.map((e: { id: string }) => e.id)).toEqual([mine.id]);
      const explicit = await importDoc(u.token, p.id, PETSTORE, 'application/yaml', '?onConflict=fail');
      expect(explicit.status).toBe(409);
    });

    it('?onConflict=skip keeps existing endpoints and creates the rest', async () => {
      const u = await s.client.user();
      const p = await s.client.project(u.token);
      const mine = await s.client.endpoint(u.token, p.id, { method: 'get', path: '/pets', responseBody: 'mine' });
      const r = await importDoc(u.token, p.id, PETSTORE, 'application/yaml', '?onConflict=skip');
      expect(r.status).toBe(200);
      expect(r.json.created.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toEqual([
        'POST /pets',
        'GET /pets/:petId',
      ]);
      expect(r.json.replaced).toEqual([]);
      expect(r.json.skipped).toEqual([{ method: 'GET', path: '/pets', reason: expect.stringContaining(mine.id) }]);
      expect((await s.client.mock(p.id, 'GET', '/pets')).text).toBe('mine');
    });

    it('?onConflict=replace overwrites the default answer and keeps the endpoint and its rules', async () => {
      const u = await s.client.user();
      const p = await s.client.project(u.token);
      const mine = await s.client.endpoint(u.token, p.id, {
        method: 'GET',
        path: '/pets/:id',
        statusCode: 418,
        responseBody: 'mine',
        contentType: 'text/plain',
      });
      await s.client.rule(u.token, p.id, mine.id, {
        conditions: [{ target: 'header', key: 'x-vip', operator: 'exists' }],
        response: { steps: [{ statusCode: 202, body: 'vip' }] },
      });
      const r = await importDoc(u.token, p.id, PETSTORE, 'application/yaml', '?onConflict=replace');
      expect(r.status).toBe(200);
      expect(r.json.created).toHaveLength(2);
      expect(r.json.replaced).toEqual([
        expect.objectContaining({
          id: mine.id,
          path: '/pets/:petId',
          statusCode: 200,
          contentType: 'application/json',
        }),
      ]);
      const plain = await s.client.mock(p.id, 'GET', '/pets/1');
      expect(plain.status).toBe(200);
      expect(plain.json).toEqual(PET);
      const vip = await s.client.mock(p.id, 'GET', '/pets/1', { headers: { 'x-vip': '1' } });
      expect([vip.status, vip.text]).toEqual([202, 'vip']);
    });

    it('rejects an unknown onConflict value', async () => {
      const u = await s.client.user();
      const p = await s.client.project(u.token);
      const r = await importDoc(u.token, p.id, PETSTORE, 'application/yaml', '?onConflict=merge');
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe('validation_failed');
    });

    it('answers 400 validation_failed with details for invalid documents', async () => {
      const u = await s.client.user();
      const p = await s.client.project(u.token);
      const invalid = await s.client.api(
        'POST',
        `/api/projects/${p.id}/import/openapi`,
        { openapi: '3.0.3', info: { title: 'x' }, paths: { '/a': { get: { responses: {} } } } },
        u.token,
      );
      expect(invalid.status).toBe(400);
      expect(invalid.json.error.code).toBe('validation_failed');
      expect(invalid.json.error.details.length).toBeGreaterThanOrEqual(1);
      expect(invalid.json.error.details.map((d: { message: string }) => d.message).join(' ')).toMatch(/version/);

      const brokenRef = await s.client.api(
        'POST',
        `/api/projects/${p.id}/import/openapi`,
        {
          openapi: '3.1.0',
          info: { title: 'x', version: '1' },
          paths: { '/a': { get: { responses: { '200': { $ref: '#/components/responses/Nope' } } } } },
        },
        u.token,
      );
      expect(brokenRef.status).toBe(400);
      expect(brokenRef.json.error.code).toBe('validation_failed');

      const swagger = await s.client.api(
        'POST',
        `/api/projects/${p.id}/import/openapi`,
        { swagger: '1.2', info: { title: 'x', version: '1' }, paths: {} },
        u.token,
      );
      expect(swagger.status).toBe(400);
      expect(swagger.json.error.details[0].path).toBe('/swagger');

      const yaml = await importDoc(u.token, p.id, 'openapi: 3.0.0\ninfo: [unclosed\n', 'application/yaml');
      expect(yaml.status).toBe(400);
      expect(yaml.json.error.code).toBe('validation_failed');
      expect(yaml.json.error.message).toMatch(/YAML/);

      const scalar = await importDoc(u.token, p.id, '42', 'application/json');
      expect(scalar.status).toBe(400);
      const brokenJson = await importDoc(u.token, p.id, '{"openapi":', 'application/json');
      expect([brokenJson.status, brokenJson.json.error.code]).toEqual([400, 'invalid_json']);
      const list = await s.client.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token);
      expect(list.json).toEqual([]);
    });

    it('takes no other media type, and YAML only on this route', async () => {
      const u = await s.client.user();
      const p = await s.client.project(u.token);
      const text = await importDoc(u.token, p.id, PETSTORE, 'text/plain');
      expect([text.status, text.json.error.code]).toEqual([415, 'unsupported_media_type']);
      const elsewhere = await s.client.api('POST', '/api/projects', 'name: yaml', u.token, {
        'content-type': 'application/yaml',
      });
      expect([elsewhere.status, elsewhere.json.error.code]).toEqual([415, 'unsupported_media_type']);
    });

    it('takes documents over 1 MiB, and caps them at the import limit with a 413 that arrives, YAML included', async () => {
      const u = await s.client.user();
      const p = await s.client.project(u.token);
      // 1.5 MiB: over the management limit, under the import limit
      const padded = `${PETSTORE}\nx-padding: "${'a'.repeat(1536 * 1024)}"\n`;
      const ok = await importDoc(u.token, p.id, padded, 'application/yaml');
      expect(ok.status).toBe(200);
      expect(ok.json.created.length).toBeGreaterThan(0);
      // over the limit (32 MiB + 1): the answer, not a broken pipe, whether the length is declared or not
      const big = Buffer.alloc(32 * 1024 * 1024 + 1, 97);
      const declared = await request(`${s.running.url}/api/projects/${p.id}/import/openapi`, {
        method: 'POST',
        headers: { authorization: `Bearer ${u.token}`, 'content-type': 'application/yaml' },
        body: big,
      });
      expect([declared.status, declared.json.error.code]).toEqual([413, 'payload_too_large']);
      expect(declared.json.error.message).toContain('32 MiB');
      const chunked = await fetch(`${s.running.url}/api/projects/${p.id}/import/openapi`, {
        method: 'POST',
        headers: { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' },
        body: new Blob([big]).stream(),
        duplex: 'half',
      } as RequestInit);
      expect(chunked.status).toBe(413);
      expect(((await chunked.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    });

    it('is scoped to the caller', async () => {
      const owner = await s.client.user();
      const other = await s.client.user();
      const p = await s.client.project(owner.token);
      const r = await importDoc(other.token, p.id, PETSTORE, 'application/yaml');
      expect([r.status, r.json.error.code]).toEqual([404, 'not_found']);
      const anon = await importDoc('', p.id, PETSTORE, 'application/yaml');
      expect(anon.status).toBe(401);
      const list = await s.client.api('GET', `/api/projects/${p.id}/endpoints`, undefined, owner.token);
      expect(list.json).toEqual([]);
    });

    it('is listed in /api/openapi.json', async () => {
      const r = await s.client.api('GET', '/api/openapi.json');
      expect(r.status).toBe(200);
      const paths = r.json.paths;
      expect(paths['/api/projects/{projectId}/import/openapi'].post.requestBody.content).toHaveProperty(
        'application/yaml',
      );
      expect(paths['/api/projects/{projectId}/import/openapi'].post.responses).toHaveProperty('200');
      expect(paths['/api/projects/{id}/export'].get.responses['200'].content['application/json'].schema).toMatchObject({
        type: 'object',
      });
      expect(paths['/api/projects/import'].post.requestBody.content['application/json'].schema.required).toEqual(
        expect.arrayContaining(['mockyard', 'project', 'endpoints']),
      );
    });
  });
}
