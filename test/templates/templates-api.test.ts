/**
 * Templates II through the real server (docs/templates.md): blocks and helpers in mock answers,
 * config variables (exported and imported), collection items per session, the helper table, the
 * render route, parse errors at save with line and column, and a loop bomb that leaves /healthz answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { expectError } from '../helpers/expect.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(DIALECTS)('templates II (%s)', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect);
  });
  afterAll(() => s.close());

  it('answers with blocks, helpers, cookies, jwt claims and config variables', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const put = await c.api(
      'PATCH',
      `/api/projects/${p.id}`,
      { config: { tenant: 't-42', base: 'https://api.test' } },
      u.token,
    );
    expect(put.status).toBe(200);
    expect(put.json.config).toEqual({ tenant: 't-42', base: 'https://api.test' });
    await c.endpoint(u.token, p.id, {
      method: 'POST',
      path: '/orders/:id',
      responseBody: [
        '{"id":"{{request.params.id}}","tenant":"{{config.tenant}}",',
        '"items":[{{#each request.body.items}}{"sku":"{{sku}}","line":{{multiply price qty}}}{{#unless @last}},{{/unless}}{{/each}}],',
        '"total":{{sum (pluck request.body.items "price")}},',
        '"limit":{{default request.query.limit 10}},',
        '"admin":{{#if (eq (jwtPayload "role") "admin")}}true{{else}}false{{/if}},',
        '"sid":"{{request.cookies.sid}}","who":"{{capitalize (lowercase request.body.name)}}",',
        '"tomorrow":"{{dateFormat (dateAdd "2024-01-31T00:00:00Z" "+1 days") \'yyyy-MM-dd\'}}"}',
      ].join(''),
    });
    const token = `e30.${Buffer.from('{"role":"admin"}').toString('base64url')}.x`;
    const r = await c.mock(p.id, 'POST', '/orders/7', {
      query: 'limit=3',
      headers: { 'content-type': 'application/json', cookie: 'sid=s1', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        name: 'ADA LOVELACE',
        items: [
          { sku: 'A', price: 2, qty: 3 },
          { sku: 'B', price: 5, qty: 1 },
        ],
      }),
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      id: '7',
      tenant: 't-42',
      items: [
        { sku: 'A', line: 6 },
        { sku: 'B', line: 5 },
      ],
      total: 7,
      limit: 3,
      admin: true,
      sid: 's1',
      who: 'Ada Lovelace',
      tomorrow: '2024-02-01',
    });

    // config travels with the export and back
    const exp = await c.api('GET', `/api/projects/${p.id}/export`, undefined, u.token);
    expect(exp.json.project.config).toEqual({ tenant: 't-42', base: 'https://api.test' });
    const imp = await c.api('POST', '/api/projects/import', exp.json, u.token);
    expect(imp.status).toBe(201);
    const copy = await c.api('GET', `/api/projects/${imp.json.id}`, undefined, u.token);
    expect(copy.json.config).toEqual({ tenant: 't-42', base: 'https://api.test' });
  });

  it('rejects bad config variables', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    expectError(
      await c.api('PATCH', `/api/projects/${p.id}`, { config: { 'bad name': 'x' } }, u.token),
      400,
      'validation_failed',
    );
    expectError(
      await c.api('PATCH', `/api/projects/${p.id}`, { config: { big: 'x'.repeat(5000) } }, u.token),
      400,
      'validation_failed',
    );
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`v${i}`, 'x']));
    expectError(await c.api('PATCH', `/api/projects/${p.id}`, { config: many }, u.token), 400, 'validation_failed');
  });

  it('lists the session copy of a collection with #each collection.NAME.items', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const col = await c.api(
      'POST',
      `/api/projects/${p.id}/collections`,
      { name: 'users', seed: [{ id: '1', name: 'Ann' }] },
      u.token,
    );
    expect(col.status).toBe(201);
    await c.endpoint(u.token, p.id, {
      method: 'POST',
      path: '/users',
      data: { collection: 'users', operation: 'create' },
    });
    await c.endpoint(u.token, p.id, {
      method: 'GET',
      path: '/names',
      contentType: 'text/plain',
      responseBody:
        '{{#each collection.users.items}}{{name}}{{#unless @last}},{{/unless}}{{/each}} ({{collection.users.count}})',
    });
    const session = { 'x-mockyard-session': 's-a' };
    await c.mock(p.id, 'POST', '/users', {
      headers: { ...session, 'content-type': 'application/json' },
      body: '{"name":"Bo"}',
    });
    expect((await c.mock(p.id, 'GET', '/names', { headers: session })).text).toBe('Ann,Bo (2)');
    expect((await c.mock(p.id, 'GET', '/names')).text).toBe('Ann (1)');
  });

  it('serves the helper table and renders previews', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const table = await c.api('GET', '/api/templates/helpers', undefined, u.token);
    expect(table.status).toBe(200);
    const add = table.json.find((h: { name: string }) => h.name === 'add');
    expect(add).toMatchObject({ family: 'math', example: '{{add 1 2 3}}', output: '6' });
    expectError(await c.api('GET', '/api/templates/helpers'), 401, 'unauthorized');

    await c.api('PATCH', `/api/projects/${p.id}`, { config: { env: 'staging' } }, u.token);
    const ok = await c.api(
      'POST',
      `/api/projects/${p.id}/templates/render`,
      {
        template: '{{config.env}}:{{request.query.q}}:{{request.body.a}}:{{uppercase request.method}}',
        request: { method: 'put', query: { q: 'x' }, body: { a: 1 } },
      },
      u.token,
    );
    expect(ok.json).toEqual({ output: 'staging:x:1:PUT' });
    const bad = await c.api('POST', `/api/projects/${p.id}/templates/render`, { template: 'a\n{{#each x}}' }, u.token);
    expectError(bad, 400, 'template_invalid');
    expect(bad.json.error.details[0]).toMatchObject({ line: 2, column: 1 });
  });

  it('every example of the helper table renders its output through the render route and a mock answer', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const table = (await c.api('GET', '/api/templates/helpers', undefined, u.token)).json as {
      name: string;
      example: string;
      output?: string;
    }[];
    expect(table.length).toBeGreaterThan(100);
    // the clock and the Host differ from the table's empty request
    const fixed = table.filter(
      (h) => h.output !== undefined && !/\{\{(now|\$isoDate|\$timestamp|hostname)/.test(h.example),
    );
    // one endpoint answers every example at once, one per line: the real mock path renders them
    const joined = fixed.map((h) => h.example).join('\n---\n');
    await c.endpoint(u.token, p.id, { method: 'POST', path: '/all', contentType: 'text/plain', responseBody: joined });
    const answer = await c.mock(p.id, 'POST', '/all');
    expect(answer.text.split('\n---\n')).toEqual(fixed.map((h) => h.output));
    for (const h of fixed.slice(0, 40)) {
      const r = await c.api(
        'POST',
        `/api/projects/${p.id}/templates/render`,
        { template: h.example, request: { method: 'POST' } },
        u.token,
      );
      expect(r.json, h.name).toEqual({ output: h.output });
    }
  });

  it('refuses to save a template that does not parse, with its position', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const e = await c.api(
      'POST',
      `/api/projects/${p.id}/endpoints`,
      { method: 'GET', path: '/a', responseBody: '{\n  {{/each}}\n}' },
      u.token,
    );
    expectError(e, 400, 'validation_failed');
    expect(e.json.error.details[0]).toMatchObject({ path: '/responseBody', line: 2, column: 3 });
    const ep = await c.endpoint(u.token, p.id, { method: 'GET', path: '/b' });
    const r = await c.api(
      'POST',
      `/api/projects/${p.id}/endpoints/${ep.id}/rules`,
      {
        name: 'r',
        response: { steps: [{ statusCode: 200, body: '{{#if x}}open' }] },
        actions: [{ type: 'set_variable', name: 'v', value: '{{else}}' }],
      },
      u.token,
    );
    expectError(r, 400, 'validation_failed');
    expect(r.json.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      '/actions/0/value',
      '/response/steps/0/body',
    ]);
  });

  it('a loop bomb stops at the cap while /healthz keeps answering', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    await c.endpoint(u.token, p.id, {
      method: 'GET',
      path: '/bomb',
      contentType: 'text/plain',
      responseBody: '{{#repeat 100000000 comma=false}}{{#repeat 100000000 comma=false}}x{{/repeat}}{{/repeat}}',
    });
    const started = performance.now();
    const [bomb, health] = await Promise.all([c.mock(p.id, 'GET', '/bomb'), c.api('GET', '/healthz')]);
    expect(health.status).toBe(200);
    expect(bomb.status).toBe(200);
    // one budget for the render: the outer loop's first turn takes one of the 10,000
    expect(bomb.text.length).toBe(9_999);
    expect(performance.now() - started).toBeLessThan(5000);
    await c.endpoint(u.token, p.id, {
      method: 'GET',
      path: '/big',
      responseBody: '{{#repeat 10000 comma=false}}{{padStart "x" 1000}}{{/repeat}}',
    });
    expectError(await c.mock(p.id, 'GET', '/big'), 500, 'render_too_large');
  });
});
