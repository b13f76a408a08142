/**
 * What the rule-evaluation tests share (test/rules/evaluation.test.ts, answers.test.ts,
 * sessions-seeds-faults.test.ts): a server per database with the suite's hooks, the rule under test's
 * status, counting, a raw GET, and fixtures of a sequence.
 */
import http from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import type { DialectName } from './databases.js';
import { startTestServer, type TestServer } from './server.js';

/** status of the rule under test; endpoint defaults answer 200 */
export const HIT = 222;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export type MockOpts = { headers?: Record<string, string>; body?: string; query?: string; timeoutMs?: number };

export const countBy = (xs: (string | number)[]) => {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
};

/** A raw node:http GET (no keep-alive) that reports how the exchange ended. */
export function rawGet(url: string): Promise<{ status?: number; body?: string; error?: NodeJS.ErrnoException }> {
  return new Promise((resolve) => {
    let status: number | undefined;
    const req = http.get(url, { agent: false }, (res) => {
      status = res.statusCode;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString() }));
      res.on('error', (error) => resolve({ status, error }));
    });
    req.on('error', (error) => resolve({ status, error }));
    req.setTimeout(5000, () => req.destroy(new Error('client timeout')));
  });
}

/** A server on `dialect` for the calling describe (its hooks registered), and the helpers over it. */
export function ruleSuite(dialect: DialectName) {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => {
    await server?.close();
  });
  const client = () => server.client;
  const baseUrl = () => server.running.url;
  const rulePath = (f: { pid: string; eid: string }, rid: string) =>
    `/api/projects/${f.pid}/endpoints/${f.eid}/rules/${rid}`;

  /** statuses of n sequential requests to the fixture's endpoint */
  async function statuses(f: { pid: string; endpoint: { method: string; path: string } }, n: number, opts = {}) {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await client().mock(f.pid, f.endpoint.method, f.endpoint.path, opts)).status);
    return out;
  }

  /** an endpoint answering 418 with one rule of `response` */
  async function sequenceFixture(response: Record<string, unknown>, path = '/seq') {
    const f = await client().fixture({ method: 'GET', path, statusCode: 418 });
    const rule = await client().rule(f.token, f.pid, f.eid, { name: 'seq', response });
    return { ...f, rule };
  }
  return { client, baseUrl, rulePath, statuses, sequenceFixture };
}
