/**
 * The differential test of docs/interop.md "Fidelity" (docs/interop.md "Fidelity"): files written for WireMock,
 * Mockoon, Postman, HAR and OpenAPI, in each tool's own syntax (test/fixtures/differential.ts), answer
 * the requests they describe as their tools do — through the import API and through `serve --file`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServingFiles, serveFiles } from '../../src/files/serve.js';
import { type Answer, type Ask, CORPORA, type Corpus } from '../fixtures/differential.js';
import { ADMIN_TOKEN, type HttpAnswer, request, startTestServer, type TestServer } from '../helpers/server.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-differential-'));
let s: TestServer;
const served: ServingFiles[] = [];
beforeAll(async () => {
  s = await startTestServer('sqlite');
});
afterAll(async () => {
  await Promise.all(served.map((f) => f.close()));
  await s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** One door: how to send a request to the mocks of a corpus served through it. */
type Door = (c: Corpus) => Promise<{ send(a: Ask): Promise<HttpAnswer>; port: number; warnings: unknown[] }>;

const viaApi: Door = async (c) => {
  const u = await s.client.user();
  await s.client.api('PATCH', `/api/admin/users/${u.id}`, { plan: 'unlimited' }, s.client.adminToken);
  const p = await s.client.project(u.token);
  const r = await s.client.api('POST', `/api/projects/${p.id}/import/${c.format}`, c.file, u.token);
  expect(r.status, r.text).toBe(200);
  return {
    port: Number(new URL(s.client.base).port),
    warnings: r.json.warnings,
    send: (a) => request(`${s.client.base}/m/${p.id}${a.path}`, { method: a.method, headers: a.headers, body: a.body }),
  };
};

const viaServeFile: Door = async (c) => {
  const file = path.join(dir, `${c.format}.json`);
  fs.writeFileSync(file, c.file);
  const f = await serveFiles({
    file,
    port: 0,
    host: '127.0.0.1',
    watch: false,
    env: { MOCKYARD_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent' },
    note: () => {},
  });
  served.push(f);
  return {
    port: Number(new URL(f.running.url).port),
    warnings: [],
    send: (a) => request(`${f.running.url}${a.path}`, { method: a.method, headers: a.headers, body: a.body }),
  };
};

function compare(got: HttpAnswer, want: Answer, port: number): string[] {
  const diffs: string[] = [];
  if (got.status !== want.status) diffs.push(`status ${got.status}, not ${want.status}`);
  if (typeof want.body === 'string' && got.text !== want.body) diffs.push(`body ${JSON.stringify(got.text)}`);
  if (typeof want.body === 'function' && !want.body(got.text, port)) diffs.push(`body ${JSON.stringify(got.text)}`);
  if (want.contentType !== undefined && got.headers.get('content-type') !== want.contentType)
    diffs.push(`content-type ${got.headers.get('content-type')}, not ${want.contentType}`);
  for (const [name, value] of Object.entries(want.headers ?? {}))
    if (got.headers.get(name) !== value) diffs.push(`${name}: ${got.headers.get(name)}, not ${value} (once)`);
  return diffs;
}

describe.each([
  ['the import API', viaApi],
  ['serve --file', viaServeFile],
])('files of other tools answer as their tools do, through %s', (_door, door) => {
  it.each(CORPORA.map((c) => [c.format, c] as const))('%s', async (_format, corpus) => {
    const served = await door(corpus);
    const wrong: string[] = [];
    for (const c of corpus.cases) {
      const got = await served.send(c.ask);
      const diffs = compare(got, c.want, served.port);
      if (diffs.length > 0) wrong.push(`${c.ask.method} ${c.ask.path} (${c.why}): ${diffs.join('; ')}`);
    }
    expect(wrong).toEqual([]);
  });
});
