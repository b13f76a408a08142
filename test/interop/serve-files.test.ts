/**
 * Mocks as code (docs/testing.md): `mockyard serve --file` serves a file or folder in any import format
 * at the root path with no account, keeps the management API behind the admin token, reloads with
 * --watch keeping the sequence positions of unchanged rules, and exits 1 naming a bad file.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MockFileError } from '../../src/files/load.js';
import { type ServingFiles, serveFiles } from '../../src/files/serve.js';
import { HAR, MOCKOON, POSTMAN, WIREMOCK } from '../fixtures/peers.js';
import { UUID7 } from '../helpers/expect.js';
import { ADMIN_TOKEN, freePort, ROOT, request } from '../helpers/server.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-files-'));
const write = (rel: string, content: unknown) => {
  const file = path.join(dir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
};
const env = { MOCKYARD_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent' };
const opened: ServingFiles[] = [];
async function serve(file: string, watch = false) {
  const notes: string[] = [];
  const s = await serveFiles({ file, port: 0, host: '127.0.0.1', watch, env, note: (l) => notes.push(l) });
  opened.push(s);
  const get = (p: string, init: Parameters<typeof request>[1] = {}) => request(`${s.running.url}${p}`, init);
  return { s, get, notes };
}
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('mockyard serve --file', () => {
  it('serves each format at the root path, with no account', async () => {
    const cases: [string, unknown, string, string][] = [
      [
        'export.json',
        {
          mockyard: 1,
          project: { name: 'e' },
          endpoints: [{ method: 'GET', path: '/api/users', responseBody: '[1]', rules: [] }],
        },
        '/api/users',
        '[1]',
      ],
      [
        'openapi.yaml',
        'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /pets:\n    get:\n      responses:\n        "200":\n          description: ok\n          content:\n            application/json:\n              example: [{name: rex}]\n',
        '/pets',
        '[\n  {\n    "name": "rex"\n  }\n]',
      ],
      [
        'swagger.json',
        {
          swagger: '2.0',
          info: { title: 't', version: '1' },
          paths: {
            '/sw': {
              get: {
                produces: ['text/plain'],
                responses: { 200: { description: 'ok', examples: { 'text/plain': 'hi' } } },
              },
            },
          },
        },
        '/sw',
        'hi',
      ],
      ['mockoon.json', MOCKOON, '/api/products/4', '{"id":"4"}'],
      ['postman.json', POSTMAN, '/users/1', '{"id":1,"name":"Ada"}'],
      ['capture.har.json', HAR, '/jobs/1', '{"state":"queued"}'],
    ];
    for (const [name, doc, p, body] of cases) {
      const { get } = await serve(write(`formats/${name}`, doc));
      const a = await get(p);
      expect(a.status, name).toBe(200);
      expect(a.text, name).toBe(body);
    }
  });

  it('reads bodyFileName from __files (any letter case), never from outside it', async () => {
    for (const files of ['__files', '__Files']) {
      const base = `wm-bodies-${files}`;
      write(`${base}/mappings/stubs.json`, {
        mappings: [
          { request: { method: 'GET', url: '/doc' }, response: { status: 200, bodyFileName: 'doc.json' } },
          { request: { method: 'GET', url: '/deep' }, response: { status: 200, bodyFileName: 'sub/deep.txt' } },
          { request: { method: 'GET', url: '/escape' }, response: { status: 200, bodyFileName: '../secret.txt' } },
        ],
      });
      write(`${base}/${files}/doc.json`, '{"from":"file"}');
      write(`${base}/${files}/sub/deep.txt`, 'deep body');
      write(`${base}/secret.txt`, 'must not be served');
      // the WireMock root, and the mappings folder itself, both find the bodies
      for (const root of [path.join(dir, base), path.join(dir, base, 'mappings')]) {
        const { get } = await serve(root);
        expect((await get('/doc')).json).toEqual({ from: 'file' });
        expect((await get('/deep')).text).toBe('deep body');
        const outside = await get('/escape');
        expect(outside.status).toBe(200);
        expect(outside.text).not.toContain('must not');
      }
    }
  });

  it('serves a WireMock folder (stubs of several files, JSON and YAML, on one route become one endpoint)', async () => {
    write('wm/mappings/todo.json', { mappings: WIREMOCK.mappings.slice(0, 3) });
    write(
      'wm/mappings/extra.yaml',
      'priority: 1\nrequest:\n  method: GET\n  url: /todo/items\n  headers:\n    X-Empty: {equalTo: "yes"}\nresponse:\n  status: 200\n  jsonBody: {items: []}\n',
    );
    write('wm/__files/ignored.json', '{not json');
    const { get, s } = await serve(path.join(dir, 'wm'));
    expect((await get('/todo/items')).json).toEqual({ items: ['Buy milk'] });
    expect((await get('/todo/items', { headers: { 'x-empty': 'yes' } })).json).toEqual({ items: [] });
    expect((await get('/todo/items', { method: 'POST', body: 'Cancel newspaper subscription' })).status).toBe(201);
    expect((await get('/todo/items')).json.items).toHaveLength(2);
    // the management API: only with the admin token, acting as the files' owner
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const projects = await get('/api/projects', { headers: auth });
    expect(projects.status).toBe(200);
    expect(projects.json).toEqual([expect.objectContaining({ id: s.running.root?.projectId })]);
    const count = await get(`/api/projects/${s.running.root?.projectId}/requests/count`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ path: '/todo/items', method: 'GET' }),
    });
    expect(count.json).toEqual({ count: 3 });
    // without it, /api/… is a mock path like any other
    const noAuth = await get('/api/projects');
    expect(noAuth.status).toBe(404);
    expect(noAuth.json.error.code).toBe('mock_not_found');
    // the health checks stay the service's (container wait strategies)
    expect((await get('/healthz')).json).toEqual({ status: 'ok' });
  });

  it('--watch reloads, keeping the sequence position of unchanged rules', async () => {
    const seq = (bodies: string[]) => ({
      mockyard: 1,
      project: { name: 'w' },
      endpoints: [
        {
          method: 'GET',
          path: '/seq',
          rules: [{ name: 's', response: { steps: bodies.map((b) => ({ statusCode: 200, body: b })) } }],
        },
        { method: 'GET', path: '/other', responseBody: 'v1', rules: [] },
      ],
    });
    const file = write('watch/mocks.json', seq(['a', 'b', 'c']));
    const { get, s, notes } = await serve(file, true);
    expect((await get('/seq')).text).toBe('a');
    fs.writeFileSync(
      file,
      JSON.stringify({
        ...seq(['a', 'b', 'c']),
        endpoints: [
          seq(['a', 'b', 'c']).endpoints[0],
          { method: 'GET', path: '/other', responseBody: 'v2', rules: [] },
        ],
      }),
    );
    await pollFor(async () => (await get('/other')).text === 'v2');
    expect((await get('/seq')).text).toBe('b'); // position kept
    fs.writeFileSync(file, JSON.stringify(seq(['x', 'y'])));
    await pollFor(async () => (await get('/other')).text === 'v1');
    await s.settled();
    expect((await get('/seq')).text).toBe('x'); // a changed response starts over
    // a broken file keeps the previous mocks and says why
    fs.writeFileSync(file, '{"mockyard": 1, ');
    await pollFor(async () => notes.some((n) => n.includes('reload failed')));
    expect((await get('/seq')).text).toBe('y');
  });

  it('--watch knows rules by content, applies changed seeds and stored values, checks seeds; /m/… is a mock path', async () => {
    const doc = (o: { first: string; extra: boolean; seed: object[]; tier: string; mode: string }) => ({
      mockyard: 1,
      project: { name: 'w2' },
      endpoints: [
        {
          method: 'GET',
          path: '/seq',
          // not sorted by priority in the file
          rules: [
            ...(o.extra
              ? [{ name: 'new', priority: 0, conditions: [{ target: 'header', key: 'x-new', operator: 'exists' }] }]
              : []),
            { name: 'late', priority: 9, conditions: [{ target: 'query', key: 'late', operator: 'exists' }] },
            {
              name: 'seq',
              priority: 1,
              response: { steps: ['a', 'b', 'c'].map((b) => ({ statusCode: 200, body: b })) },
            },
            {
              name: 'first',
              priority: 0,
              conditions: [{ target: 'header', key: 'x-first', operator: 'equals', value: o.first }],
            },
          ],
        },
        { method: 'GET', path: '/tier', responseBody: '{{endpoint.tier}}/{{project.mode}}', rules: [] },
        { method: 'GET', path: '/m/legacy/ping', responseBody: 'pong', rules: [] },
        { method: 'GET', path: '/items/:id', data: { collection: 'items', operation: 'get' }, rules: [] },
      ],
      collections: [{ name: 'items', idField: 'id', seed: o.seed }],
      storage: { 'GET /tier': { tier: o.tier } },
      projectStorage: { mode: o.mode },
    });
    const file = write(
      'watch2/mocks.json',
      doc({ first: '1', extra: false, seed: [{ id: 1, v: 'one' }], tier: 'gold', mode: 'dark' }),
    );
    const { get, s } = await serve(file, true);
    expect((await get('/seq')).text).toBe('a');
    expect((await get('/tier')).text).toBe('gold/dark');
    expect((await get('/items/1')).json).toEqual({ id: 1, v: 'one' });
    // every path is a mock path under serve --file, /m/… included
    expect((await get('/m/legacy/ping')).text).toBe('pong');

    // a rule added before it and another rule changed: the sequence rule keeps its position
    fs.writeFileSync(
      file,
      JSON.stringify(doc({ first: '2', extra: true, seed: [{ id: 1, v: 'uno' }], tier: 'silver', mode: 'light' })),
    );
    await pollFor(async () => (await get('/tier')).text === 'silver/light');
    const r = await s.settled();
    expect(r?.updated).toBeGreaterThan(0);
    expect((await get('/seq')).text).toBe('b');
    expect((await get('/items/1')).json).toEqual({ id: 1, v: 'uno' });
    // a reload that changes nothing writes nothing, and positions stay
    fs.writeFileSync(
      file,
      JSON.stringify(doc({ first: '2', extra: true, seed: [{ id: 1, v: 'uno' }], tier: 'silver', mode: 'light' })),
    );
    await pollFor(async () => (await s.settled())?.unchanged === 4);
    expect((await get('/seq')).text).toBe('c');

    // a seed with two items of one id: a warning, an empty collection, no 500s
    const bad = write(
      'badseed/mocks.json',
      doc({ first: '1', extra: false, seed: [{ id: 1 }, { id: 1 }], tier: 't', mode: 'm' }),
    );
    const b = await serve(bad);
    expect(b.notes.some((n) => n.includes('seed not imported'))).toBe(true);
    expect((await b.get('/items/1')).status).toBe(404);
  });

  it('--watch keeps the generated ids of unchanged seed items, and what mock traffic created', async () => {
    const doc = (seed: object[], other: string) => ({
      mockyard: 1,
      project: { name: 'w4' },
      endpoints: [
        { method: 'GET', path: '/items', data: { collection: 'items', operation: 'list' }, rules: [] },
        { method: 'POST', path: '/items', data: { collection: 'items', operation: 'create' }, rules: [] },
        { method: 'GET', path: '/other', responseBody: other, rules: [] },
      ],
      collections: [{ name: 'items', idField: 'id', seed }],
    });
    const file = write('watch4/mocks.json', doc([{ v: 'one' }, { v: 'two' }], 'v1'));
    const { get, s } = await serve(file, true);
    const list = async () => (await get('/items')).json as { id: string; v: string }[];
    const seeded = await list();
    expect(seeded.map((i) => i.v)).toEqual(['one', 'two']);
    // generated through this door as through the API: version-7 UUIDs
    for (const i of seeded) expect(i.id).toMatch(UUID7);
    const created = await get('/items', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ v: 'three' }),
    });
    expect(created.status).toBe(201);
    // another endpoint changes: the seed did not, so the collection keeps its ids and the created item
    fs.writeFileSync(file, JSON.stringify(doc([{ v: 'one' }, { v: 'two' }], 'v2')));
    await pollFor(async () => (await get('/other')).text === 'v2');
    await s.settled();
    expect(await list()).toEqual([...seeded, created.json]);
    // one seed item changes: the collection starts over from the seed, the unchanged item keeps its id
    fs.writeFileSync(file, JSON.stringify(doc([{ v: 'one' }, { v: 'deux' }], 'v2')));
    await pollFor(async () => (await list()).length === 2);
    const after = await list();
    expect(after[0]).toEqual(seeded[0]);
    expect(after[1].v).toBe('deux');
    expect(after[1].id).not.toBe(seeded[1].id);
  });

  it('names the file that cannot be read, parsed or recognised', async () => {
    await expect(serveFiles({ file: path.join(dir, 'missing.json'), env })).rejects.toThrow(MockFileError);
    const bad = write('bad/x.yaml', 'a: [1\n');
    await expect(serveFiles({ file: bad, env })).rejects.toThrow(/x\.yaml/);
    const unknown = write('unknown/u.json', { hello: 'world' });
    await expect(serveFiles({ file: path.dirname(unknown), env })).rejects.toThrow(/u\.json: is none of the formats/);
  });

  it('runs from the command line: serves, and exits 1 with the path on stderr for a bad file', async () => {
    const port = await freePort();
    const file = write('cli/users.json', {
      mockyard: 1,
      project: { name: 'c' },
      endpoints: [{ method: 'GET', path: '/api/users', responseBody: '["ada"]', rules: [] }],
    });
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'bin/mockyard.mjs'), 'serve', '--file', file, '--port', String(port)],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      await pollFor(
        async () => (await request(`http://127.0.0.1:${port}/api/users`).catch(() => null))?.status === 200,
      );
      expect((await request(`http://127.0.0.1:${port}/api/users`)).json).toEqual(['ada']);
    } finally {
      child.kill('SIGTERM');
    }
    const broken = write('cli/broken.json', '{"mockyard": ');
    const out = await run(['serve', '--file', broken]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(broken);
  });

  it("--watch applies the file's validation modes and contract: attached, changed, removed", async () => {
    const contract = (min: number) => ({
      openapi: '3.0.3',
      info: { title: 'c', version: '1' },
      paths: {
        '/orders': {
          get: {
            parameters: [{ name: 'qty', in: 'query', required: true, schema: { type: 'integer', minimum: min } }],
            responses: { 200: { description: 'ok' } },
          },
        },
      },
    });
    const doc = (c: unknown) => ({
      mockyard: 1,
      project: { name: 'v', validation: { requests: 'enforce' } },
      endpoints: [{ method: 'GET', path: '/orders', responseBody: '[]', rules: [] }],
      ...(c ? { contract: c } : {}),
    });
    const file = write('watch3/mocks.json', doc(contract(1)));
    const { get, s } = await serve(file, true);
    expect((await get('/orders?qty=2')).status).toBe(200);
    expect((await get('/orders?qty=0')).status).toBe(400);
    fs.writeFileSync(file, JSON.stringify(doc(contract(5))));
    await pollFor(async () => (await get('/orders?qty=2')).status === 400);
    expect((await get('/orders?qty=5')).status).toBe(200);
    fs.writeFileSync(file, JSON.stringify(doc(null)));
    await pollFor(async () => (await get('/orders?qty=0')).status === 200);
    await s.settled();
    const auth = { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };
    const [project] = (await get('/api/projects', auth)).json;
    expect((await get(`/api/projects/${project.id}/contract`, auth)).status).toBe(404);
    expect(project.validation).toEqual({ requests: 'enforce', responses: 'off', status: 400 });
    // a contract that cannot be loaded is a warning; the mocks are served
    const bad = await serve(write('watch3/bad.json', doc({ openapi: '3.0.3', paths: {} })));
    expect(bad.notes.some((n) => n.includes('/contract: the contract is not attached'))).toBe(true);
    expect((await bad.get('/orders?qty=0')).status).toBe(200);
  });
});

async function pollFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition not met in time');
}

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/mockyard.mjs'), ...args], {
      env: { ...process.env, ...env },
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stderr }));
  });
}
