/**
 * The two-process fixture of the scale tests (test/scale/two-processes*.test.ts): two real processes
 * (dist/main.js) on a fresh PostgreSQL database, an admin connection, a user's token, and the helpers
 * those tests share. Importing it registers the file's hooks (only when the scale tests run).
 */
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { freshDatabase, PG_URL, type TestDatabase } from './databases.js';
import { type ChildServer, type HttpAnswer, request, sleep, spawnServer } from './server.js';

export const RUN = PG_URL !== '' || process.env.CI === 'true';
/** docs/api.md "Mock traffic": a management change is in effect on every other process within 1 s. */
export const PROPAGATION_MS = 1000;

/**
 * Repeats `attempt` until `ok` holds. Passes if an attempt started within `ms` of the call
 * succeeds; fails with the last answer otherwise.
 */
export async function within<T>(
  ms: number,
  attempt: () => Promise<T>,
  ok: (t: T) => boolean,
  what: string,
): Promise<T> {
  const t0 = performance.now();
  for (;;) {
    const sent = performance.now();
    const last = await attempt();
    if (ok(last)) return last;
    if (sent - t0 > ms) {
      throw new Error(`${what}: not within ${ms} ms; last answer ${JSON.stringify(last)?.slice(0, 300)}`);
    }
    await sleep(20);
  }
}

export const status = (r: HttpAnswer) => r.status;

/** An SSE reader: collects the `data:` entries of a stream until stopped. */
export function openStream(url: string, token: string) {
  const ctl = new AbortController();
  // biome-ignore lint/suspicious/noExplicitAny: entries are inspected freely
  const entries: any[] = [];
  const ready = (async () => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: ctl.signal });
    if (res.status !== 200 || !res.body) throw new Error(`stream: ${res.status}`);
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buf += dec.decode(value, { stream: true });
          let i = buf.indexOf('\n\n');
          while (i !== -1) {
            for (const line of buf.slice(0, i).split('\n')) {
              if (line.startsWith('data: ')) entries.push(JSON.parse(line.slice(6)));
            }
            buf = buf.slice(i + 2);
            i = buf.indexOf('\n\n');
          }
        }
      } catch {
        /* aborted */
      }
    })();
  })();
  return { ready, entries, close: () => ctl.abort() };
}

export let db: TestDatabase;
export let dbName: string;
export let admin: pg.Client;
export let a: ChildServer;
export let b: ChildServer;
export let token: string;
export const extra: ChildServer[] = [];

if (RUN)
  beforeAll(async () => {
    db = await freshDatabase('postgres');
    dbName = new URL(db.url).pathname.slice(1);
    admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    [a, b] = await Promise.all([spawnServer(db.url), spawnServer(db.url)]);
    token = (await a.client.user()).token;
  });

if (RUN)
  afterAll(async () => {
    await admin?.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`).catch(() => {});
    await Promise.all([a, b, ...extra].filter(Boolean).map((s) => s.stop('SIGKILL')));
    await admin?.end().catch(() => {});
    await db?.drop();
  });

export const api = (s: ChildServer, method: string, p: string, body?: unknown) => s.client.api(method, p, body, token);

export async function project(): Promise<string> {
  return (await a.client.project(token)).id;
}

/**
 * Waits until B's mock path serves the endpoint's rules as A wrote them. The API reads the
 * database, so a rule listed by B's API may not be in B's compiled project yet; a probe rule
 * (created last, first by priority, answering only `x-probe: 1`) on B's mock path says it is: a
 * configuration that has the probe has every rule made before it.
 */
export async function rulesOnB(pid: string, endpointId: string, method: string, path: string): Promise<void> {
  await a.client.rule(token, pid, endpointId, {
    priority: -1,
    conditions: [{ target: 'header', key: 'x-probe', operator: 'equals', value: '1' }],
    response: { steps: [{ statusCode: 299 }] },
  });
  await within(
    PROPAGATION_MS,
    () => b.client.mock(pid, method, path, { headers: { 'x-probe': '1' } }),
    (r) => r.status === 299,
    'rules on B',
  );
}

/** Backends of this database that hold a LISTEN connection (one per process). */
/** a process's change feed, as its /healthz tells it */
export async function feedOf(s: ChildServer): Promise<{ listening: boolean; attempts: number; pending: boolean }> {
  const r = await request(`${s.base}/healthz?detail=1`);
  expect(r.status).toBe(200);
  return r.json.changeFeed;
}

export async function listeners(): Promise<number[]> {
  const r = await admin.query(
    `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'mockyard-listener' ORDER BY pid`,
    [dbName],
  );
  return r.rows.map((x: { pid: number }) => x.pid);
}
