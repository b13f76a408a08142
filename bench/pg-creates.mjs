// S8-pg's pattern through the store's PostgreSQL hot path, without HTTP: two stores (two pools, as two
// Mockyard processes would have) on one fresh database, each with CONC creates in flight over 50
// sessions (the batches of store/hot/pg-creates.ts), in one process. Prints, for each of 3 rounds of
// N creates, the creates a second, the CPU per create of this process and of PostgreSQL (every
// process named `postgres` on this machine, so run it on a quiet one) and the creates a batch
// statement took on average. SHARED=0 gives the two stores
// sessions of their own instead of the same 50 (no lock waits between them). Pin it like the bench
// pins the servers: `taskset -c 1 node bench/pg-creates.mjs` (after `npm run build`). SETUP_SQL runs
// on the fresh database after the stores made their tables (to try a schema change: an index or a
// constraint dropped, say).
//   PG_URL=postgres://postgres@127.0.0.1:5432/test node bench/pg-creates.mjs [checkout]
import fs from 'node:fs';
import path from 'node:path';
import { freshPgDatabase, procCpuUs } from './lib/standalone.mjs';

const root = path.resolve(process.argv[2] ?? '.');
const N = Number(process.env.N ?? 20_000);
const CONC = Number(process.env.CONC ?? 25);
const SHARED = process.env.SHARED !== '0';
const SESSIONS = 50;
const body = { name: 'new item', price: 12.5, tags: ['a', 'b'], stock: 3 };

/** CPU µs used so far by every process named `postgres` */
function postgresCpu() {
  let us = 0;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let name = '';
    try {
      name = fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim();
    } catch {
      continue; // gone
    }
    if (name === 'postgres') us += procCpuUs(d);
  }
  return us;
}

const db = await freshPgDatabase(root, 'mockyard_pg_creates');
const stores = [await db.openStore(db.url), await db.openStore(db.url)];
try {
  await db.setupSql();
  const [a, b] = stores;
  const projectId = await db.collection(a);
  const refs = (tag) =>
    Array.from({ length: SESSIONS }, (_, s) => ({
      projectId,
      name: 'items',
      idField: 'id',
      seed: [],
      base: null,
      session: `${tag}${s}`,
    }));
  const sessions = [refs('a'), SHARED ? null : refs('b')];
  sessions[1] ??= sessions[0];
  // each session's copy made before the rounds, as the bench's warm-up does
  for (let i = 0; i < 2; i++)
    await Promise.all(sessions[i].map((r) => stores[i].hot.collection(r, { op: 'create', item: { ...body } })));
  for (let round = 0; round < 3; round++) {
    let sent = 0;
    const load = (store, rs) =>
      Array.from({ length: CONC }, async () => {
        while (sent < N) {
          sent++;
          const r = rs[Math.floor(Math.random() * SESSIONS)];
          const out = await store.hot.collection(r, { op: 'create', item: { ...body } });
          if (out.kind !== 'item') throw new Error(`a create answered ${out.kind}`);
        }
      });
    const b0 = stores.map((st) => [st.hot.creates.batches, st.hot.creates.batched]);
    const c0 = process.cpuUsage();
    const p0 = postgresCpu();
    const t0 = performance.now();
    await Promise.all([...load(a, sessions[0]), ...load(b, sessions[1])]);
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    const pgUs = postgresCpu() - p0;
    // creates a batch statement took, on average (the batcher's counters, both stores)
    const [batches, batched] = stores.reduce(
      ([n, m], st, i) => [n + st.hot.creates.batches - b0[i][0], m + st.hot.creates.batched - b0[i][1]],
      [0, 0],
    );
    console.log(
      `round ${round + 1}: ${Math.round((N / ms) * 1000)} creates a second; CPU a create: this process ${((c.user + c.system) / N).toFixed(1)} µs, PostgreSQL ${(pgUs / N).toFixed(1)} µs; ${(batched / Math.max(batches, 1)).toFixed(1)} creates a batch`,
    );
  }
} finally {
  for (const s of stores) await s.close();
  await db.drop();
}
