/**
 * Imports against the service's limits (docs/limits.md): an OpenAPI import past the endpoints per
 * project creates nothing, and a project import obeys the endpoints-per-project and projects-per-user
 * limits; the import workers run at the priority `MOCKYARD_IMPORT_NICE` gives them (19 by default).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadNice } from '../../src/interop/thread-cpu.js';
import { freshDatabase } from '../helpers/databases.js';
import { ROOT, spawnServer, startTestServer, type TestServer } from '../helpers/server.js';

const PETSTORE = fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'petstore.yaml'), 'utf8');

describe('OpenAPI import limits', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite', { maxEndpointsPerProject: 4 });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('respects the endpoints-per-project limit: nothing created past it', async () => {
    const u = await s.client.user();
    const p = await s.client.project(u.token);
    await s.client.endpoint(u.token, p.id, { method: 'GET', path: '/a' });
    await s.client.endpoint(u.token, p.id, { method: 'GET', path: '/b' });
    const r = await s.client.api('POST', `/api/projects/${p.id}/import/openapi`, PETSTORE, u.token, {
      'content-type': 'application/yaml',
    });
    expect([r.status, r.json.error.code]).toEqual([422, 'limit_exceeded']);
    const list = await s.client.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token);
    expect(list.json).toHaveLength(2);
    // with room for all three it goes through
    await s.client.api('DELETE', `/api/projects/${p.id}/endpoints/${list.json[1].id}`, undefined, u.token);
    const fits = await s.client.api('POST', `/api/projects/${p.id}/import/openapi`, PETSTORE, u.token, {
      'content-type': 'application/yaml',
    });
    expect(fits.status).toBe(200);
    expect(fits.json.created).toHaveLength(3);
  });
});

describe('project import limits', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite', { maxEndpointsPerProject: 2, maxProjectsPerUser: 2 });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('respects the endpoints-per-project and projects-per-user limits', async () => {
    const u = await s.client.user();
    const doc = {
      mockyard: 1,
      project: { name: 'big' },
      endpoints: ['/a', '/b', '/c'].map((path) => ({ method: 'GET', path })),
    };
    const tooMany = await s.client.api('POST', '/api/projects/import', doc, u.token);
    expect([tooMany.status, tooMany.json.error.code]).toEqual([422, 'limit_exceeded']);
    doc.endpoints.pop();
    expect((await s.client.api('POST', '/api/projects/import', doc, u.token)).status).toBe(201);
    expect((await s.client.api('POST', '/api/projects/import', doc, u.token)).status).toBe(201);
    const third = await s.client.api('POST', '/api/projects/import', doc, u.token);
    expect([third.status, third.json.error.code]).toEqual([422, 'limit_exceeded']);
    expect((await s.client.api('GET', '/api/projects', undefined, u.token)).json).toHaveLength(2);
  });
});

/** The nice values of a process's threads that are not 0 (Linux: /proc), or null elsewhere. */
function niceThreads(pid: number): number[] | null {
  if (!fs.existsSync(`/proc/${pid}/task`)) return null;
  return fs
    .readdirSync(`/proc/${pid}/task`)
    .map((t) => threadNice(Number(t), pid))
    .filter((n): n is number => n !== null && n !== 0); // null: a thread that ended meanwhile
}

describe.runIf(fs.existsSync('/proc/thread-self'))('import workers’ priority', () => {
  it.each([
    [{}, 19],
    [{ MOCKYARD_IMPORT_NICE: '11' }, 11],
  ])('with %j the worker thread that ran an import runs at nice %d, the rest at 0', async (env, nice) => {
    const db = await freshDatabase('sqlite');
    const child = await spawnServer(db.url, env);
    try {
      const u = await child.client.user();
      const p = await child.client.project(u.token);
      expect(niceThreads(child.proc.pid as number)).toEqual([]);
      const r = await child.client.api('POST', `/api/projects/${p.id}/import/openapi`, PETSTORE, u.token, {
        'content-type': 'application/yaml',
      });
      expect(r.status).toBe(200);
      expect(niceThreads(child.proc.pid as number)).toEqual([nice]);
    } finally {
      await child.stop();
      await db.drop();
    }
  });
});
