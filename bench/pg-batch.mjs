// One PostgreSQL backend calling `mockyard_create_batch` (store/migrations/pg-create-batch.ts) back
// to back, G sessions a call with one new item each, on a fresh database migrated by the checkout:
// prints, for 3 rounds of CALLS calls, the wall time and the backend's own CPU a call (its /proc
// entry, so PostgreSQL must run on this machine). No Mockyard process, no pool, no lock waits: the
// function's cost alone, steadier than pg-creates.mjs for comparing two forms of it. FRESH=1 calls
// the form that is told the ids were made by the process (migration 0018); SETUP_SQL runs first on
// the database (a constraint dropped, the function replaced); EXPLAIN=1 logs one more call's plans
// through auto_explain into PostgreSQL's log.
//   PG_URL=postgres://postgres@127.0.0.1:5432/test node bench/pg-batch.mjs [checkout]
import { createRequire } from 'node:module';
import path from 'node:path';
import { procStat } from './lib/standalone.mjs';

const root = path.resolve(process.argv[2] ?? '.');
const PG_URL = process.env.PG_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const G = Number(process.env.G ?? 25);
const CALLS = Number(process.env.CALLS ?? 2000);
const SESSIONS = 50;
const FRESH = process.env.FRESH === '1';

const pg = createRequire(path.join(root, 'package.json'))('pg');
const { openStore } = await import(path.join(root, 'dist/store/index.js'));
const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
const dbName = `mockyard_pg_batch_${process.pid}`;
await admin.query(`CREATE DATABASE "${dbName}"`);
const url = new URL(PG_URL);
url.pathname = `/${dbName}`;
const c = new pg.Client({ connectionString: url.href });
try {
  const store = await openStore(url.href);
  const u = await store.users.create('bench@example.test', 'h');
  const p = await store.projects.create(u.id, { name: 'p' });
  await store.collections.create(u.id, p.id, 'items', { idField: 'id', seed: [] });
  // each session's copy, made by a first create
  for (let s = 0; s < SESSIONS; s++) {
    const ref = { projectId: p.id, name: 'items', idField: 'id', seed: [], base: null, session: `s${s}` };
    await store.hot.collection(ref, { op: 'create', item: { first: true } });
  }
  await store.close();
  await c.connect();
  if (process.env.SETUP_SQL) await c.query(process.env.SETUP_SQL);
  const pid = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const cpuUs = () => {
    const f = procStat(pid);
    return (Number(f[11]) + Number(f[12])) * 10_000; // USER_HZ 100
  };
  const data = JSON.stringify({ name: 'new item', price: 12.5, tags: ['a', 'b'], stock: 3 });
  const text = `SELECT g, item_id FROM mockyard_create_batch($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[],
    $6::bigint[], $7::bigint[], $8::int[], $9::text[], $10::text[], $11::bigint[], $12, $13, $14, $15${FRESH ? ', $16::boolean[]' : ''})`;
  let n = 0;
  const call = () => {
    // G distinct sessions a call, a different set each time
    const sessions = Array.from({ length: G }, (_, i) => `s${(n * 7 + i) % SESSIONS}`);
    const ids = sessions.map(() => `id${n++}`);
    const values = [
      sessions.map((s) => `collection:${p.id}:items:${s}`),
      sessions.map(() => p.id),
      sessions.map(() => 'items'),
      sessions,
      sessions.map(() => 1),
      sessions.map(() => data.length),
      sessions.map(() => -1),
      sessions.map((_, i) => i + 1),
      ids,
      sessions.map(() => data),
      sessions.map(() => data.length),
      Date.now(),
      10_000,
      10 * 1024 * 1024,
      60_000,
    ];
    if (FRESH) values.push(sessions.map(() => true));
    return c.query({ name: 'batch', text, values });
  };
  for (let round = 0; round < 3; round++) {
    const c0 = cpuUs();
    const t0 = performance.now();
    for (let i = 0; i < CALLS; i++) await call();
    const wallUs = ((performance.now() - t0) * 1000) / CALLS;
    const backendUs = (cpuUs() - c0) / CALLS;
    console.log(
      `round ${round + 1}: ${wallUs.toFixed(0)} µs a call, the backend ${backendUs.toFixed(0)} µs of CPU (${(backendUs / G).toFixed(1)} a create)`,
    );
  }
  if (process.env.EXPLAIN) {
    await c.query("LOAD 'auto_explain'");
    await c.query(
      'SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_analyze = on',
    );
    await call();
  }
} finally {
  await c.end().catch(() => {});
  await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin.end();
}
