// A rolling update on PostgreSQL, by hand: a checkout of the version before (built) opens a fresh
// database and makes items, then this checkout (built) opens it — running its migrations while the
// other's store is open — and both create and delete in the same 10 sessions at once (20 loops of
// 150 commands each: creates with ids made, and in every other loop given ones too, lists, deletes
// of a session's first item).
// It then checks the rows: every create answered is stored once, less the deletes, no two items of a
// session at one position, and each session's count, bytes and last position right. Exits 1 when not.
//   PG_URL=postgres://postgres@127.0.0.1:5432/test node bench/pg-rolling.mjs <checkout before> [checkout after]
import path from 'node:path';
import { freshPgDatabase } from './lib/standalone.mjs';

if (!process.argv[2]) {
  console.error('usage: node bench/pg-rolling.mjs <checkout before> [checkout after]');
  process.exit(2);
}
const before = path.resolve(process.argv[2]);
const after = path.resolve(process.argv[3] ?? '.');
const db = await freshPgDatabase(before, 'mockyard_pg_rolling');
const { openStore: openAfter } = await import(path.join(after, 'dist/store/index.js'));
const older = await db.openStore(db.url);
let failed = false;
try {
  const projectId = await db.collection(older);
  const refs = Array.from({ length: 10 }, (_, s) => ({
    projectId,
    name: 'items',
    idField: 'id',
    seed: [],
    base: null,
    session: `s${s}`,
  }));
  for (const r of refs) for (let i = 0; i < 5; i++) await older.hot.collection(r, { op: 'create', item: { n: i } });
  const newer = await openAfter(db.url);
  let created = 50;
  let deleted = 0;
  const work = async (store, tag) => {
    for (let loop = 0; loop < 20; loop++) {
      const outs = await Promise.all(
        Array.from({ length: 150 }, async (_, i) => {
          const r = refs[(i * 7 + loop) % 10];
          if (i % 10 === 9) {
            const l = await store.hot.collection(r, { op: 'list' });
            const first = l.kind === 'items' && l.raw.length > 0 ? JSON.parse(l.raw[0]).id : null;
            if (first && (await store.hot.collection(r, { op: 'delete', id: first })).kind === 'deleted') deleted++;
            return null;
          }
          // ids given in every other loop: a batch of only made ids takes the function's plain insert
          const item = loop % 2 === 0 && i % 3 === 0 ? { id: `given-${tag}-${loop}-${i}` } : { n: i };
          return store.hot.collection(r, { op: 'create', item });
        }),
      );
      for (const o of outs) {
        if (o === null) continue;
        if (o.kind !== 'item') throw new Error(`a create answered ${o.kind}`);
        created++;
      }
    }
  };
  await Promise.all([work(older, 'before'), work(newer, 'after')]);
  const c = new db.pg.Client({ connectionString: db.url });
  await c.connect();
  const stored = Number((await c.query('SELECT count(*) FROM collection_items')).rows[0].count);
  const shared = (await c.query('SELECT session, ord FROM collection_items GROUP BY 1, 2 HAVING count(*) > 1')).rows
    .length;
  const wrong = (
    await c.query(`SELECT s.session, s.items, s.bytes, s.last_ord,
        (SELECT count(*) FROM collection_items i WHERE i.session = s.session) AS n,
        (SELECT coalesce(sum(octet_length(i.data)), 0) FROM collection_items i WHERE i.session = s.session) AS b,
        (SELECT coalesce(max(i.ord), 0) FROM collection_items i WHERE i.session = s.session) AS top
      FROM collection_sessions s`)
  ).rows.filter(
    (r) => Number(r.items) !== Number(r.n) || Number(r.bytes) !== Number(r.b) || Number(r.last_ord) < Number(r.top),
  );
  const migration = (await c.query('SELECT name FROM kysely_migration ORDER BY name DESC LIMIT 1')).rows[0].name;
  await c.end();
  console.log(
    `${created} creates answered, ${deleted} deletes: ${created - deleted} items expected, ${stored} stored; ` +
      `${shared} positions shared; sessions wrong: ${wrong.length ? JSON.stringify(wrong) : 'none'}; ` +
      `migrated to ${migration}; batch statements' creates: before ${older.hot.creates.oneTrip}, after ${newer.hot.creates.oneTrip}`,
  );
  failed = stored !== created - deleted || shared > 0 || wrong.length > 0;
  await newer.close();
} finally {
  await older.close();
  await db.drop();
}
process.exit(failed ? 1 : 0);
