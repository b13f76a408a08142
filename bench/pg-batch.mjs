// One PostgreSQL backend calling `mockyard_create_batch` (store/migrations/pg-create-batch.ts) back
// to back, G sessions a call with one new item each, on a fresh database migrated by the checkout:
// prints, for 3 rounds of CALLS calls, the wall time and the backend's own CPU a call (its /proc
// entry, so PostgreSQL must run on this machine). No Mockyard process, no pool, no lock waits: the
// function's cost alone, steadier than pg-creates.mjs for comparing two forms of it. FRESH=1 calls
// the form that is told the ids were made by the process (migration 0018); SETUP_SQL runs first on
// the database (a constraint dropped, the function replaced); GROW_SQL runs after the first round on
// another connection (rows added under the plans the backend made, which it keeps); EXPLAIN=1 logs
// one more call's plans through auto_explain into PostgreSQL's log.
//   PG_URL=postgres://postgres@127.0.0.1:5432/test node bench/pg-batch.mjs [checkout]
import path from 'node:path';
import { freshPgDatabase, procCpuUs } from './lib/standalone.mjs';

const root = path.resolve(process.argv[2] ?? '.');
const G = Number(process.env.G ?? 25);
const CALLS = Number(process.env.CALLS ?? 2000);
const SESSIONS = 50;
const FRESH = process.env.FRESH === '1';

const db = await freshPgDatabase(root, 'mockyard_pg_batch');
const c = new db.pg.Client({ connectionString: db.url });
try {
  const store = await db.openStore(db.url);
  const projectId = await db.collection(store);
  // each session's copy, made by a first create
  for (let s = 0; s < SESSIONS; s++) {
    const ref = { projectId, name: 'items', idField: 'id', seed: [], base: null, session: `s${s}` };
    await store.hot.collection(ref, { op: 'create', item: { first: true } });
  }
  await store.close();
  await db.setupSql();
  await c.connect();
  const pid = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  const data = JSON.stringify({ name: 'new item', price: 12.5, tags: ['a', 'b'], stock: 3 });
  const text = `SELECT g, item_id FROM mockyard_create_batch($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[],
    $6::bigint[], $7::bigint[], $8::int[], $9::text[], $10::text[], $11::bigint[], $12, $13, $14, $15${FRESH ? ', $16::boolean[]' : ''})`;
  let n = 0;
  const call = () => {
    // G distinct sessions a call, a different set each time
    const sessions = Array.from({ length: G }, (_, i) => `s${(n * 7 + i) % SESSIONS}`);
    const ids = sessions.map(() => `id${n++}`);
    const values = [
      sessions.map((s) => `collection:${projectId}:items:${s}`),
      sessions.map(() => projectId),
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
    if (round === 1 && process.env.GROW_SQL) {
      // after the connection made its plans: a table grown under them (GROW_SQL, another connection)
      await db.sql(process.env.GROW_SQL);
      console.log('GROW_SQL run');
    }
    const c0 = procCpuUs(pid);
    const t0 = performance.now();
    for (let i = 0; i < CALLS; i++) await call();
    const wallUs = ((performance.now() - t0) * 1000) / CALLS;
    const backendUs = (procCpuUs(pid) - c0) / CALLS;
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
  await db.drop();
}
