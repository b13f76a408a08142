// What the standalone benches (bench/sse.mjs, bench/ws.mjs, bench/after-gc.mjs) share with each other and with bench/run.mjs:
// waiting for a server, the management API by base URL, one process's RSS, its /proc/<pid>/stat fields
// and its own write calls, and `npm start`'s flags; and what the store's PostgreSQL tools
// (bench/pg-creates.mjs, bench/pg-batch.mjs) share: a fresh database with a collection in it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Resolves once `url` answers 2xx (up to 150 s). */
export async function waitFor(url) {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await sleep(250);
  }
  throw new Error(`${url} did not answer`);
}

/** A management API call; throws on a non-2xx answer. */
export async function api(base, method, p, body, token) {
  const r = await fetch(`${base}${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await r.json().catch(() => null);
  if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

/** One process's resident memory, MB. */
export const rssMB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** A process's /proc/<pid>/stat fields after its name (field 3 of proc(5) first), or null once it is gone. */
export function procStat(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** A process's CPU so far (user and system), µs, or 0 once it is gone. */
export function procCpuUs(pid) {
  const f = procStat(pid);
  return f ? (Number(f[11]) + Number(f[12])) * 10_000 : 0; // USER_HZ 100
}

/** This process's write calls and bytes written so far (/proc/self/io: `syscw`, `wchar`). */
export function procIo() {
  const text = fs.readFileSync('/proc/self/io', 'utf8');
  return { calls: Number(/syscw: (\d+)/.exec(text)[1]), bytes: Number(/wchar: (\d+)/.exec(text)[1]) };
}

/**
 * The environment assignments and node flags of `npm start` in a checkout (its package.json), so a
 * measured process is the one users run.
 */
export function npmStart(dir) {
  try {
    const script = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).scripts?.start ?? '';
    const words = script.split(/\s+/);
    const env = Object.fromEntries(
      words
        .filter((w) => /^[A-Z_][A-Z0-9_]*=/.test(w))
        .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
    );
    return { env, flags: words.filter((w) => w.startsWith('--')) };
  } catch {
    return { env: {}, flags: [] };
  }
}

/**
 * A fresh PostgreSQL database on PG_URL's server (or TEST_DATABASE_URL's) for a tool that drives a
 * checkout's store directly: the checkout's `pg` module and `openStore`, the database's URL,
 * `collection(store)` (a user and project with an unseeded collection `items`: the project's id),
 * `sql(text)` (on a connection of its own), `setupSql()` (SETUP_SQL from the environment, when set)
 * and `drop()`.
 */
export async function freshPgDatabase(root, prefix) {
  const server = process.env.PG_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const pg = createRequire(path.join(root, 'package.json'))('pg');
  const { openStore } = await import(path.join(root, 'dist/store/index.js'));
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  const name = `${prefix}_${process.pid}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    pg,
    openStore,
    url: url.href,
    async collection(store) {
      const u = await store.users.create('bench@example.test', 'h');
      const p = await store.projects.create(u.id, { name: 'p' });
      await store.collections.create(u.id, p.id, 'items', { idField: 'id', seed: [] });
      return p.id;
    },
    /** runs `text` on a connection of its own */
    async sql(text) {
      const c = new pg.Client({ connectionString: url.href });
      await c.connect();
      try {
        await c.query(text);
      } finally {
        await c.end();
      }
    },
    async setupSql() {
      if (process.env.SETUP_SQL) await this.sql(process.env.SETUP_SQL);
    },
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}
