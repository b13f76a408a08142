/**
 * Contract validation (docs/contract.md) through the real server on both databases: attaching the
 * contract, the three request modes and their precedence, every parameter location and style, body
 * keywords and formats, nullable, readOnly, discriminator, form bodies, security presence, the
 * problem body, response validation of mocks, the log, verification and lint.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { DIALECTS } from '../helpers/databases.js';
import { expectError } from '../helpers/expect.js';
import { freePort, startTestServer, type TestServer } from '../helpers/server.js';
import { PET, PETSTORE } from './fixture.js';

const RID = '6f1c2e0a-8d1b-4c3e-9f2a-1b2c3d4e5f60';

describe.each(DIALECTS)('contract validation (%s)', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect);
  });
  afterAll(() => s.close());

  async function setup(validation: Record<string, unknown>) {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const put = await c.api('PUT', `/api/projects/${p.id}/contract`, PETSTORE, u.token);
    expect(put.status, put.text).toBe(200);
    expect(put.json).toEqual({ format: 'openapi-3.0', operations: 4, warnings: [] });
    expect((await c.api('PATCH', `/api/projects/${p.id}`, { validation }, u.token)).status).toBe(200);
    const pets = await c.endpoint(u.token, p.id, {
      method: 'GET',
      path: '/pets',
      responseBody: '[]',
      headers: { 'X-Total': '0' },
    });
    await c.endpoint(u.token, p.id, {
      method: 'POST',
      path: '/pets',
      statusCode: 201,
      responseBody: JSON.stringify({ id: RID, ...PET }),
    });
    await c.endpoint(u.token, p.id, {
      method: 'GET',
      path: '/pets/:petId',
      responseBody: JSON.stringify({ id: RID, ...PET }),
    });
    await c.endpoint(u.token, p.id, { method: 'POST', path: '/animals', statusCode: 204 });
    return { c, u, p, pets };
  }

  it('attaches, reads, replaces (YAML) and removes the contract', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    expectError(await c.api('GET', `/api/projects/${p.id}/contract`, undefined, u.token), 404, 'not_found');
    await c.api('PUT', `/api/projects/${p.id}/contract`, PETSTORE, u.token);
    expect((await c.api('GET', `/api/projects/${p.id}/contract`, undefined, u.token)).json).toEqual(PETSTORE);
    const yaml =
      'openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths:\n  /x:\n    get:\n      responses:\n        "200": {description: ok}\n';
    const r = await c.api('PUT', `/api/projects/${p.id}/contract`, yaml, u.token, {
      'content-type': 'application/yaml',
    });
    expect(r.json).toEqual({ format: 'openapi-3.1', operations: 1, warnings: [] });
    // JSON with comments is read as an import reads it; text that is no JSON stays a 400
    const commented = `// the pet store\n${JSON.stringify(PETSTORE, null, 2).replace('{', '{ /* its contract */')}`;
    const json = { 'content-type': 'application/json' };
    expect((await c.api('PUT', `/api/projects/${p.id}/contract`, commented, u.token, json)).json).toMatchObject({
      operations: 4,
    });
    expect((await c.api('GET', `/api/projects/${p.id}/contract`, undefined, u.token)).json).toEqual(PETSTORE);
    expectError(
      await c.api('PUT', `/api/projects/${p.id}/contract`, '{"openapi": ', u.token, json),
      400,
      'validation_failed',
    );
    expectError(
      await c.api('PUT', `/api/projects/${p.id}/contract`, { openapi: '9' }, u.token),
      400,
      'validation_failed',
    );
    expect((await c.api('DELETE', `/api/projects/${p.id}/contract`, undefined, u.token)).status).toBe(204);
    expectError(await c.api('GET', `/api/projects/${p.id}/contract`, undefined, u.token), 404, 'not_found');
    const other = await c.user();
    expectError(await c.api('GET', `/api/projects/${p.id}/contract`, undefined, other.token), 404, 'not_found');
  });

  it('enforce answers problem+json with one violation per problem, for every parameter location', async () => {
    const { c, p } = await setup({ requests: 'enforce' });
    const ok = await c.mock(p.id, 'GET', '/pets', {
      query: 'limit=5&tags=a&tags=b&ids=1,2',
      headers: { 'x-request-id': RID },
    });
    expect(ok.status, ok.text).toBe(200);
    const bad = await c.mock(p.id, 'GET', '/pets', { query: 'limit=0&ids=1,x', headers: {} });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('application/problem+json');
    expect(bad.headers.get('x-mockyard-violations')).toBe('3');
    expect(bad.json).toMatchObject({
      type: 'request_validation_failed',
      title: 'The request does not match the API contract',
      status: 400,
    });
    expect(bad.json.violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'query', name: 'limit', keyword: 'minimum' }),
        expect.objectContaining({ in: 'query', name: 'ids', keyword: 'type' }),
        expect.objectContaining({ in: 'header', name: 'X-Request-Id', keyword: 'required' }),
      ]),
    );
    // path (int32) and cookie parameters; the server URL's path prefix is optional
    expect((await c.mock(p.id, 'GET', '/pets/7', { headers: { cookie: 'sid=abcd' } })).status).toBe(200);
    expect((await c.mock(p.id, 'GET', '/v1/pets/7', { headers: { cookie: 'sid=abcd' } })).status).toBe(404);
    const path = await c.mock(p.id, 'GET', '/pets/seven', { headers: { cookie: 'sid=ab' } });
    expect(path.json.violations.map((v: { in: string }) => v.in).sort()).toEqual(['cookie', 'path']);
    const none = await c.mock(p.id, 'DELETE', '/pets/7');
    expect(none.json.violations).toEqual([expect.objectContaining({ in: 'operation' })]);
  });

  it('checks bodies: keywords, formats, nullable, readOnly, discriminator, form bodies, content types', async () => {
    const { c, p } = await setup({ requests: 'enforce', status: 422 });
    const post = (body: string, type = 'application/json', key = true) =>
      c.mock(p.id, 'POST', '/pets', { body, headers: { 'content-type': type, ...(key ? { 'x-api-key': 'k' } : {}) } });
    expect((await post(JSON.stringify(PET))).status).toBe(201);
    const wrong = await post(
      JSON.stringify({ ...PET, price: 'cheap', born: '2020-13-01', owner: 'nope', kind: 'cow', tag: 5 }),
    );
    expect(wrong.status).toBe(422);
    const byPointer = Object.fromEntries(
      wrong.json.violations.map((v: { pointer: string; keyword: string }) => [v.pointer, v.keyword]),
    );
    expect(byPointer).toMatchObject({
      '/price': 'type',
      '/born': 'format',
      '/owner': 'format',
      '/kind': 'enum',
      '/tag': 'type',
    });
    expect(wrong.json.violations.find((v: { pointer: string }) => v.pointer === '/price').message).toBe(
      'must be number, got string',
    );
    const ro = await post(JSON.stringify({ ...PET, id: RID }));
    expect(ro.json.violations).toEqual([
      expect.objectContaining({ in: 'body', pointer: '/id', message: expect.stringContaining('readOnly') }),
    ]);
    const missing = await post(JSON.stringify({ name: 'x' }));
    expect(missing.json.violations).toEqual([expect.objectContaining({ pointer: '/price', keyword: 'required' })]);
    expect((await post('name=Rex&price=3', 'application/x-www-form-urlencoded')).status).toBe(201);
    expect((await post('price=abc', 'application/x-www-form-urlencoded')).json.violations.length).toBe(2);
    expect((await post('<pet/>', 'application/xml')).json.violations).toEqual([
      expect.objectContaining({ in: 'header', name: 'content-type' }),
    ]);
    expect((await post('')).json.violations).toEqual([expect.objectContaining({ in: 'body', keyword: 'required' })]);
    expect((await post('{not json')).json.violations[0].message).toBe('the body is not valid JSON');
    // security: an API key header or a bearer token
    expect((await post(JSON.stringify(PET), 'application/json', false)).json.violations).toEqual([
      expect.objectContaining({ in: 'security' }),
    ]);
    const bearer = await c.mock(p.id, 'POST', '/pets', {
      body: JSON.stringify(PET),
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
    });
    expect(bearer.status).toBe(201);
    // oneOf with a discriminator
    const animal = (b: unknown) =>
      c.mock(p.id, 'POST', '/animals', { body: JSON.stringify(b), headers: { 'content-type': 'application/json' } });
    expect((await animal({ type: 'cat', lives: 9 })).status).toBe(204);
    expect((await animal({ type: 'dog', lives: 9 })).status).toBe(422);
  });

  it('modes: the header beats the endpoint, which beats the project; warn lets the mock answer', async () => {
    const { c, u, p, pets } = await setup({ requests: 'warn', responses: 'off' });
    const warned = await c.mock(p.id, 'GET', '/pets', { query: 'limit=abc' });
    expect(warned.status).toBe(200);
    expect(warned.headers.get('x-mockyard-violations')).toBe('2');
    expect(
      (await c.mock(p.id, 'GET', '/pets', { query: 'limit=abc', headers: { 'x-mockyard-validate': 'enforce' } }))
        .status,
    ).toBe(400);
    await c.api(
      'PATCH',
      `/api/projects/${p.id}/endpoints/${pets.id}`,
      { validation: { requests: 'enforce' } },
      u.token,
    );
    await expect.poll(async () => (await c.mock(p.id, 'GET', '/pets', { query: 'limit=abc' })).status).toBe(400);
    const off = await c.mock(p.id, 'GET', '/pets', { query: 'limit=abc', headers: { 'x-mockyard-validate': 'off' } });
    expect(off.status).toBe(200);
    expect(off.headers.get('x-mockyard-violations')).toBeNull();
    // the log entry carries the violations; verification filters on them
    const log = await c.api('GET', `/api/projects/${p.id}/requests?limit=10`, undefined, u.token);
    const entry = log.json.find(
      (e: { statusCode: number; violations?: unknown }) => e.statusCode === 200 && e.violations,
    );
    expect(entry.violations.request).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'query', name: 'limit' })]),
    );
    const withV = await c.api('POST', `/api/projects/${p.id}/requests/count`, { violations: true }, u.token);
    const withoutV = await c.api('POST', `/api/projects/${p.id}/requests/count`, { violations: false }, u.token);
    expect(withV.json.count).toBe(3);
    expect(withoutV.json.count).toBe(1);
  });

  it('warns about answers that drift from the contract: status, headers, body', async () => {
    const { c, u, p, pets } = await setup({ requests: 'off', responses: 'warn' });
    const good = await c.mock(p.id, 'GET', '/pets');
    expect(good.headers.get('x-mockyard-violations')).toBeNull();
    await c.api(
      'PATCH',
      `/api/projects/${p.id}/endpoints/${pets.id}`,
      { headers: {}, responseBody: JSON.stringify([{ id: RID, name: 'Rex', price: '9', secret: 's' }]) },
      u.token,
    );
    await expect.poll(async () => (await c.mock(p.id, 'GET', '/pets')).headers.get('x-mockyard-violations')).toBe('3');
    const log = await c.api('POST', `/api/projects/${p.id}/requests/find`, { violations: true }, u.token);
    const v = log.json[log.json.length - 1].violations.response;
    expect(v).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'header', name: 'x-total' }),
        expect.objectContaining({ in: 'body', pointer: '/0/price' }),
        expect.objectContaining({ in: 'body', pointer: '/0/secret' }),
      ]),
    );
    const ep = await c.endpoint(u.token, p.id, { method: 'GET', path: '/pets/:petId/x', statusCode: 200 });
    expect(ep.id).toBeTruthy();
    const rule = await c.api(
      'POST',
      `/api/projects/${p.id}/endpoints/${pets.id}/rules`,
      { name: 'teapot', response: { steps: [{ statusCode: 418, body: '' }] } },
      u.token,
    );
    expect(rule.status).toBe(201);
    await expect.poll(async () => (await c.mock(p.id, 'GET', '/pets')).status).toBe(418);
    const last = await c.api('POST', `/api/projects/${p.id}/requests/find`, { statusCode: 418 }, u.token);
    expect(last.json[0].violations.response).toEqual([expect.objectContaining({ in: 'status' })]);
  });

  it('lints every answer and lists the operations no endpoint mocks', async () => {
    const { c, u, p, pets } = await setup({});
    await c.api('PATCH', `/api/projects/${p.id}/endpoints/${pets.id}`, { responseBody: '[{"name":1}]' }, u.token);
    await c.endpoint(u.token, p.id, { method: 'GET', path: '/nowhere' });
    const lint = await c.api('GET', `/api/projects/${p.id}/contract/lint`, undefined, u.token);
    expect(lint.status).toBe(200);
    expect(lint.json.operations).toEqual({ total: 4, mocked: 4, unmocked: [] });
    const byPath = Object.fromEntries(
      lint.json.endpoints.map((e: { method: string; path: string }) => [`${e.method} ${e.path}`, e]),
    );
    expect(byPath['GET /pets'].operation).toBe('GET /pets');
    expect(byPath['GET /pets'].problems.map((x: { pointer?: string }) => x.pointer)).toEqual(
      expect.arrayContaining(['/0/name', '/0/id', '/0/price']),
    );
    expect(byPath['GET /nowhere'].operation).toBeNull();
    expect(byPath['GET /pets/:petId'].problems).toEqual([]);
  });

  it('reads Swagger 2.0 and OpenAPI 3.1 flavours of JSON Schema', async () => {
    const c = s.client;
    const u = await c.user();
    const swagger = await c.project(u.token);
    const r = await c.api(
      'PUT',
      `/api/projects/${swagger.id}/contract`,
      {
        swagger: '2.0',
        info: { title: 's', version: '1' },
        basePath: '/api',
        securityDefinitions: { key: { type: 'apiKey', in: 'query', name: 'api_key' } },
        paths: {
          '/items': {
            post: {
              security: [{ key: [] }],
              consumes: ['application/json'],
              parameters: [
                { name: 'page', in: 'query', type: 'integer', minimum: 1 },
                {
                  name: 'body',
                  in: 'body',
                  required: true,
                  schema: {
                    type: 'object',
                    required: ['sku'],
                    properties: { sku: { type: 'string', pattern: '^[A-Z]+$' } },
                  },
                },
              ],
              responses: { 201: { description: 'made' } },
            },
          },
        },
      },
      u.token,
    );
    expect(r.json).toMatchObject({ format: 'swagger-2.0', operations: 1 });
    await c.api('PATCH', `/api/projects/${swagger.id}`, { validation: { requests: 'enforce' } }, u.token);
    await c.endpoint(u.token, swagger.id, { method: 'POST', path: '/api/items', statusCode: 201 });
    const post = (q: string, body: unknown) =>
      c.mock(swagger.id, 'POST', '/api/items', {
        query: q,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('api_key=k&page=2', { sku: 'ABC' })).status).toBe(201);
    const bad = await post('page=0', { sku: 'abc' });
    expect(bad.json.violations.map((v: { in: string }) => v.in).sort()).toEqual(['body', 'query', 'security']);

    const v31 = await c.project(u.token);
    const r31 = await c.api(
      'PUT',
      `/api/projects/${v31.id}/contract`,
      {
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        paths: {
          '/t': {
            post: {
              requestBody: {
                required: true,
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      properties: { tag: { type: ['string', 'null'] }, n: { type: 'number', exclusiveMinimum: 0 } },
                    },
                  },
                },
              },
              responses: { 200: { description: 'ok' } },
            },
          },
        },
      },
      u.token,
    );
    expect(r31.json).toMatchObject({ format: 'openapi-3.1', operations: 1 });
    await c.api('PATCH', `/api/projects/${v31.id}`, { validation: { requests: 'enforce' } }, u.token);
    await c.endpoint(u.token, v31.id, { method: 'POST', path: '/t' });
    const t = (body: unknown) =>
      c.mock(v31.id, 'POST', '/t', { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await t({ tag: null, n: 1 })).status).toBe(200);
    const t31 = await t({ tag: 5, n: 0 });
    expect(t31.json.violations.map((v: { pointer: string }) => v.pointer).sort()).toEqual(['/n', '/tag']);
  });

  it('an OpenAPI import attaches its document unless ?contract=false', async () => {
    const c = s.client;
    const u = await c.user();
    const a = await c.project(u.token);
    const b = await c.project(u.token);
    expect((await c.api('POST', `/api/projects/${a.id}/import/openapi`, PETSTORE, u.token)).status).toBe(200);
    expect((await c.api('GET', `/api/projects/${a.id}/contract`, undefined, u.token)).status).toBe(200);
    expect((await c.api('POST', `/api/projects/${b.id}/import/openapi?contract=false`, PETSTORE, u.token)).status).toBe(
      200,
    );
    expect((await c.api('GET', `/api/projects/${b.id}/contract`, undefined, u.token)).status).toBe(404);
  });

  // a body past 4 KiB is not a slice of node's pool: its bytes are moved to the import worker, and the
  // contract once read them back empty ("the document is not JSON") — every real description lost its contract
  it.each([
    ['import/openapi', 'json'],
    ['import', 'json'],
    ['import/openapi', 'yaml'],
    ['import', 'yaml'],
  ])('a %s of a %s document past 4 KiB attaches it as the contract too', async (route, kind) => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const big = { ...PETSTORE, info: { ...PETSTORE.info, description: 'A long description. '.repeat(400) } };
    const body = kind === 'json' ? JSON.stringify(big) : YAML.stringify(big);
    expect(body.length).toBeGreaterThan(8000);
    const headers = { 'content-type': kind === 'json' ? 'application/json' : 'application/yaml' };
    const r = await c.api('POST', `/api/projects/${p.id}/${route}`, body, u.token, headers);
    expect([r.status, r.json.warnings]).toEqual([200, []]);
    const contract = await c.api('GET', `/api/projects/${p.id}/contract`, undefined, u.token);
    expect([contract.status, contract.json]).toEqual([200, big]);
  });

  it('an export carries the contract and the modes; an import into a project keeps its own unless replace', async () => {
    const c = s.client;
    const u = await c.user();
    const src = await c.project(u.token);
    await c.api('PUT', `/api/projects/${src.id}/contract`, PETSTORE, u.token);
    await c.api('PATCH', `/api/projects/${src.id}`, { validation: { requests: 'enforce', status: 422 } }, u.token);
    const doc = (await c.api('GET', `/api/projects/${src.id}/export`, undefined, u.token)).json;
    expect(doc.contract).toEqual(PETSTORE);
    expect(doc.project.validation).toEqual({ requests: 'enforce', responses: 'off', status: 422 });

    const own = { ...PETSTORE, info: { ...PETSTORE.info, title: 'own' } };
    const into = await c.project(u.token);
    await c.api('PUT', `/api/projects/${into.id}/contract`, own, u.token);
    await c.api('PATCH', `/api/projects/${into.id}`, { validation: { requests: 'warn' } }, u.token);
    const kept = await c.api('POST', `/api/projects/${into.id}/import?onConflict=skip`, doc, u.token);
    expect(kept.status).toBe(200);
    expect(kept.json.warnings.map((w: { pointer: string }) => w.pointer)).toEqual(
      expect.arrayContaining(['/contract', '/project/validation']),
    );
    expect((await c.api('GET', `/api/projects/${into.id}/contract`, undefined, u.token)).json.info.title).toBe('own');
    const replaced = await c.api('POST', `/api/projects/${into.id}/import?onConflict=replace`, doc, u.token);
    expect(replaced.status).toBe(200);
    expect((await c.api('GET', `/api/projects/${into.id}/contract`, undefined, u.token)).json).toEqual(PETSTORE);

    // a new project from the export has both
    const made = await c.api('POST', '/api/projects/import', doc, u.token);
    expect(made.status).toBe(201);
    expect(made.json.validation).toEqual({ requests: 'enforce', responses: 'off', status: 422 });
    expect((await c.api('GET', `/api/projects/${made.json.id}/contract`, undefined, u.token)).json).toEqual(PETSTORE);
  });

  // a Swagger 2.0 description through either import route was imported without its contract; its mocks
  // are made at the paths as written (docs/interop.md), which the contract matches with or without basePath
  it.each(['import/openapi', 'import'])(
    'a %s of a Swagger 2.0 document attaches it, and enforce checks it',
    async (route) => {
      const c = s.client;
      const u = await c.user();
      const p = await c.project(u.token);
      const doc = {
        swagger: '2.0',
        info: { title: 'sw', version: '1' },
        basePath: '/api',
        paths: {
          '/orders': {
            post: {
              consumes: ['application/json'],
              parameters: [
                {
                  name: 'body',
                  in: 'body',
                  required: true,
                  schema: { type: 'object', required: ['qty'], properties: { qty: { type: 'integer', minimum: 1 } } },
                },
              ],
              responses: { 201: { description: 'made', schema: { type: 'object', example: { id: 1 } } } },
            },
          },
        },
      };
      const r = await c.api('POST', `/api/projects/${p.id}/${route}`, doc, u.token);
      expect([r.status, r.json.warnings]).toEqual([200, []]);
      const contract = await c.api('GET', `/api/projects/${p.id}/contract`, undefined, u.token);
      expect([contract.status, contract.json]).toEqual([200, doc]);
      await c.api('PATCH', `/api/projects/${p.id}`, { validation: { requests: 'enforce' } }, u.token);
      const post = (body: unknown) =>
        c.mock(p.id, 'POST', '/orders', {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await post({ qty: 2 })).status).toBe(201);
      const bad = await post({ qty: 0 });
      expect([bad.status, bad.json.violations.map((v: { in: string }) => v.in)]).toEqual([400, ['body']]);
    },
  );
});

describe('contract validation of a proxied upstream (sqlite)', () => {
  let s: TestServer;
  let upstream: http.Server;
  let port = 0;
  beforeAll(async () => {
    port = await freePort();
    // the "real API", answering off-contract: a name that is a number, no price
    upstream = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: RID, name: 5 }));
    });
    await new Promise<void>((r) => upstream.listen(port, '127.0.0.1', () => r()));
    s = await startTestServer('sqlite', { allowTargets: [`127.0.0.1:${port}`] });
  });
  afterAll(async () => {
    await s.close();
    await new Promise((r) => upstream.close(r));
  });

  it('says the real API drifted: header and log entry', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    await c.api('PUT', `/api/projects/${p.id}/contract`, PETSTORE, u.token);
    await c.api(
      'PATCH',
      `/api/projects/${p.id}`,
      { fallbackUrl: `http://127.0.0.1:${port}`, validation: { responses: 'warn' } },
      u.token,
    );
    const r = await c.mock(p.id, 'GET', '/pets/7', { headers: { cookie: 'sid=abcd' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-mockyard-violations')).toBe('2');
    const [entry] = (await c.api('POST', `/api/projects/${p.id}/requests/find`, { violations: true }, u.token)).json;
    expect(entry.proxied).toBe(true);
    expect(entry.violations.response.map((v: { pointer: string }) => v.pointer).sort()).toEqual(['/name', '/price']);
  });
});
