/**
 * One Mockyard export that uses every rule feature — both sequence modes, every condition target,
 * every action type, every step field, a collection binding, stored values — goes in through each
 * door: `POST /api/projects/import`, `POST /api/projects/:id/import`, `mockyard import` and
 * `mockyard serve --file`. Each door's project exports back to the same endpoints, rules,
 * collections, validation modes and contract. (An export with a rule that had a mode or a condition was refused by every door
 * but the first: the second validator could not read the schema.)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveFiles } from '../../src/files/serve.js';
import { RICH } from '../fixtures/rich-export.js';
import { UUID7 } from '../helpers/expect.js';
import { ADMIN_TOKEN, ROOT, request, startTestServer, type TestServer } from '../helpers/server.js';

type Json = Record<string, unknown>;

/** What an export says of endpoints, rules and collections, for comparing two projects. */
function shape(doc: Json) {
  const endpoints = (doc.endpoints as Json[]).map((e) => ({
    ...e,
    rules: ((e.rules as Json[] | undefined) ?? []).map(({ state: _s, id: _i, ...r }) => r),
  }));
  const project = doc.project as Json;
  return { endpoints, collections: doc.collections, validation: project.validation, contract: doc.contract };
}

const BIN = path.join(ROOT, 'bin', 'mockyard.mjs');

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: os.tmpdir() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('an export with every rule feature, through every door', () => {
  let s: TestServer;
  let dir: string;
  let token: string;
  let expected: ReturnType<typeof shape>;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-doors-'));
    const u = await s.client.user();
    token = u.token;
    await s.client.api('PATCH', `/api/admin/users/${u.id}`, { plan: 'pro' }, ADMIN_TOKEN);
    // the reference: the document through the first door, exported again (defaults filled in)
    const first = await s.client.api('POST', '/api/projects/import', RICH, token);
    expect(first.status, first.text).toBe(201);
    expected = shape((await s.client.api('GET', `/api/projects/${first.json.id}/export`, undefined, token)).json);
    expect(expected.endpoints).toHaveLength(2);
    expect([expected.validation, expected.contract]).toEqual([(RICH.project as Json).validation, RICH.contract]);
    expect((expected.endpoints[0].rules as Json[]).map((r) => r.name)).toEqual([
      'every target',
      'random loop',
      'actions only',
      'streams',
    ]);
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const exportOf = async (base: string, auth: string, pid: string) =>
    shape((await request(`${base}/api/projects/${pid}/export`, { headers: { authorization: `Bearer ${auth}` } })).json);

  it('POST /api/projects/:id/import', async () => {
    const p = await s.client.project(token, 'into');
    const r = await s.client.api('POST', `/api/projects/${p.id}/import`, RICH, token);
    expect(r.status, r.text).toBe(200);
    expect(r.json.format).toBe('mockyard');
    expect(await exportOf(s.client.base, token, p.id)).toEqual(expected);
  });

  it('mockyard import', async () => {
    const file = path.join(dir, 'rich.json');
    fs.writeFileSync(file, JSON.stringify(RICH));
    const r = await cli(['import', file, '--project', 'by cli', '--url', s.client.base, '--token', token]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const p = (await s.client.api('GET', '/api/projects', undefined, token)).json.find(
      (x: { name: string }) => x.name === 'by cli',
    );
    expect(await exportOf(s.client.base, token, p.id)).toEqual(expected);
  });

  it('a seed item without an id gets one through every import door, and the mock lists it', async () => {
    const doc = {
      mockyard: 1,
      project: { name: 'seeds' },
      endpoints: [{ method: 'GET', path: '/notes', data: { collection: 'notes', operation: 'list' } }],
      collections: [{ name: 'notes', seed: [{ id: 'n1', text: 'named' }, { text: 'unnamed' }] }],
    };
    const file = path.join(dir, 'seeds.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    const whole = await s.client.api('POST', '/api/projects/import', doc, token);
    expect(whole.status, whole.text).toBe(201);
    const into = await s.client.project(token, 'seeds into');
    const r = await s.client.api('POST', `/api/projects/${into.id}/import`, doc, token);
    expect(r.status, r.text).toBe(200);
    const byCli = await cli(['import', file, '--project', 'seeds by cli', '--url', s.client.base, '--token', token]);
    expect([byCli.code, byCli.stderr]).toEqual([0, '']);
    const projects = (await s.client.api('GET', '/api/projects', undefined, token)).json as Json[];
    const cliProject = projects.find((x) => x.name === 'seeds by cli') as Json;
    for (const pid of [whole.json.id, into.id, cliProject.id] as string[]) {
      const notes = await s.client.api('GET', `/api/projects/${pid}/collections/notes`, undefined, token);
      expect(notes.json.seed).toEqual([
        { id: 'n1', text: 'named' },
        { text: 'unnamed', id: expect.stringMatching(UUID7) },
      ]);
      const listed = await s.client.mock(pid, 'GET', '/notes');
      // the generated id goes after the item's own fields, as the stored seed spells it
      const made = (notes.json.seed as { id: string }[])[1].id;
      expect(listed.text).toBe(`[{"id":"n1","text":"named"},{"text":"unnamed","id":"${made}"}]`);
    }
  });

  it('mockyard serve --file (YAML and JSON), answering at the root path', async () => {
    for (const name of ['rich.json', 'rich.yaml']) {
      const file = path.join(dir, name);
      const { stringify } = await import('yaml');
      fs.writeFileSync(file, name.endsWith('.json') ? JSON.stringify(RICH) : stringify(RICH));
      const served = await serveFiles({
        file,
        port: 0,
        host: '127.0.0.1',
        env: { MOCKYARD_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent' },
        note: () => {},
      });
      try {
        const base = served.running.url;
        const projects = (
          await request(`${base}/api/projects`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
        ).json;
        expect(await exportOf(base, ADMIN_TOKEN, projects[0].id)).toEqual(expected);
        // the rules answer: a vip request runs the first rule's hold_last sequence
        const vip = { headers: { 'x-tier': 'vip' } };
        expect((await request(`${base}/users/7`, vip)).status).toBe(500);
        const plain = await request(`${base}/users/7`);
        expect(plain.json).toEqual({ id: '7' });
        expect(plain.headers.get('x-user')).toBe('7');
        const created = await request(`${base}/things`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"name":"two"}',
        });
        expect(created.status).toBe(201);
      } finally {
        await served.close();
      }
    }
  });

  it('one reading of the format: the strict door refuses what the lenient doors skip with the same pointers', async () => {
    const doc = {
      mockyard: 1,
      project: { name: 'flawed' },
      endpoints: [
        {
          method: 'GET',
          path: '/a',
          rules: [{ name: 'bad', conditions: [{ target: 'body', operator: 'matches_regex', value: '(' }] }],
        },
        { method: 'GET', path: '/a/' },
      ],
      storage: { 'get /a': { k: 'v' }, 'GET /nowhere': { k: 'v' } },
      collections: [{ name: 'c' }, { name: 'c' }],
    };
    const strict = await s.client.api('POST', '/api/projects/import', doc, token);
    expect(strict.status).toBe(400);
    const paths = (strict.json.error.details as { path: string }[]).map((d) => d.path);
    const expectedPointers = [
      '/endpoints/0/rules/0/conditions/0/value',
      '/endpoints/1/path',
      '/storage/GET ~1nowhere',
      '/collections/1/name',
    ];
    expect(paths).toEqual(expect.arrayContaining(expectedPointers));

    const p = await s.client.project(token, 'lenient');
    const lenient = await s.client.api('POST', `/api/projects/${p.id}/import`, doc, token);
    expect(lenient.status, lenient.text).toBe(200);
    const pointers = (lenient.json.warnings as { pointer: string }[]).map((w) => w.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining(['/endpoints/0/rules/0', '/endpoints/1', '/storage/GET ~1nowhere', '/collections/1/name']),
    );
    // the endpoint's stored value is found whatever the method's case
    const eps = (await s.client.api('GET', `/api/projects/${p.id}/endpoints`, undefined, token)).json;
    expect(eps.map((e: Json) => e.path)).toEqual(['/a']);
    const stored = await s.client.api('GET', `/api/projects/${p.id}/endpoints/${eps[0].id}/storage`, undefined, token);
    expect(stored.json).toEqual({ k: 'v' });
  });
});
