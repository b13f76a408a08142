/**
 * SQLite's journal of collection creates (sqlite-collections.ts, migration 0021): a create whose id
 * was made here waits in its copy's part of the journal (`collection_pending_<copy % PARTS>`) until
 * that part is merged into the items — when it holds MERGE_AT rows, or when a command needs the rows
 * of a copy that has some there. Whatever the
 * journal holds, every command answers as if the items were written at once; the journal survives a
 * restart, is seen by a second store on the same file, and goes with its copy.
 */
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { itemId, listedIds, sqliteStores, TWO_ITEMS } from '../../../test/helpers/sqlite-stores.js';
import { itemsCollection } from '../../../test/helpers/store-records.js';
import { COLLECTION_CAPS, seedBase } from '../../domain/collections.js';
import type { Store } from '../index.js';
import { journalTable, journalTrigger, SQLITE_PENDING } from '../migrations/sqlite-pending.js';
import type { CollectionCommand, CollectionRef, CollectionResult } from './collections.js';
import { MERGE_AT, MERGE_CHARS, PARTS } from './sqlite-collections.js';

describe('the collection creates’ journal on SQLite', () => {
  const file = sqliteStores();
  afterEach(() => file.drop());
  const { open, onFile, count, part, journal } = file;
  const copyOf = (session: string) => count('SELECT id FROM collection_sessions WHERE session = ?', session);
  const items = () => count('SELECT COUNT(*) FROM collection_items');
  /** the session's items in the journal (its copy's part) */
  const pending = (session: string) => {
    const copy = copyOf(session);
    return count(`SELECT COUNT(*) FROM ${journalTable(copy % PARTS)} WHERE copy = ?`, copy);
  };
  /** the counts on the session's copy row: what is out of the journal */
  const counted = (session: string) =>
    onFile((d) => d.prepare('SELECT items, bytes, last_ord FROM collection_sessions WHERE session = ?').get(session));
  const ids = listedIds;
  const idOf = itemId;
  const seed = TWO_ITEMS;
  let owner = '';
  let projectId = '';
  let store: Store;
  const run = (ref: CollectionRef, cmd: CollectionCommand, s = store) => s.hot.collection(ref, cmd);
  /** creates without an id (the store makes it) in session `session`: the ids made */
  const fresh = async (ref: CollectionRef, session: string, n: number, s = store) => {
    const out = await Promise.all(
      Array.from({ length: n }, (_, i) => run({ ...ref, session }, { op: 'create', item: { n: i } }, s)),
    );
    return out.map(idOf);
  };

  async function setup(): Promise<CollectionRef> {
    store = await open();
    const made = await itemsCollection(store, seed);
    ({ owner, projectId } = made);
    return made.ref;
  }

  it('keeps made ids in the journal until a list needs them, in the order they were created', async () => {
    const ref = await setup();
    const a = await fresh(ref, 'a', 3);
    const b = await fresh(ref, 'b', 2);
    expect([journal(), items(), pending('a'), pending('b')]).toEqual([5, 4, 3, 2]);
    // the count is the copy's, journal included, and reads no rows
    expect(await run(ref, { op: 'count' })).toEqual({ kind: 'count', count: 5 });
    expect(journal()).toBe(5);
    expect(copyOf('a') % PARTS).not.toBe(copyOf('b') % PARTS);
    expect(ids(await run(ref, { op: 'list' }))).toEqual(['s1', 's2', ...a]);
    // a's part merged whole, b's (another part) left as it was
    expect([journal(), items(), pending('a'), pending('b')]).toEqual([2, 7, 0, 2]);
    expect(ids(await run({ ...ref, session: 'b' }, { op: 'list' }))).toEqual(['s1', 's2', ...b]);
    expect([journal(), items(), pending('b')]).toEqual([0, 9, 0]);
    // created after the merge: after the merged ones
    const more = await fresh(ref, 'a', 1);
    expect(ids(await run(ref, { op: 'list' }))).toEqual(['s1', 's2', ...a, ...more]);
  });

  it('finds, changes and deletes a journaled item, and refuses its id to a create', async () => {
    const ref = await setup();
    const cow: CollectionRef = { ...ref, base: seedBase(seed, 'id'), session: 'w' };
    const [x] = await fresh(ref, 'a', 1);
    expect(await run(ref, { op: 'get', id: x })).toEqual({ kind: 'item', item: { n: 0, id: x } });
    const [y] = await fresh(ref, 'a', 1);
    expect(await run(ref, { op: 'update', id: y, patch: { n: 9 } })).toMatchObject({ item: { n: 9, id: y } });
    const [z] = await fresh(ref, 'a', 1);
    expect(await run(ref, { op: 'delete', id: z })).toEqual({ kind: 'deleted' });
    const [v] = await fresh(ref, 'a', 1);
    expect(journal()).toBe(1);
    expect(await run(ref, { op: 'create', item: { id: v } })).toEqual({ kind: 'conflict' });
    const [u] = await fresh(ref, 'a', 1);
    expect(await run(ref, { op: 'replace', id: u, item: { r: 1 } })).toMatchObject({ item: { r: 1, id: u } });
    expect(ids(await run(ref, { op: 'list' }))).toEqual(['s1', 's2', x, y, v, u]);
    expect(await run(ref, { op: 'count' })).toEqual({ kind: 'count', count: 6 });
    // a copy over the seed: the journal's items after the seed's, a seed item deleted and created again last
    const [w] = await fresh(cow, 'w', 1);
    expect(await run(cow, { op: 'delete', id: 's1' })).toEqual({ kind: 'deleted' });
    const [w2] = await fresh(cow, 'w', 1);
    expect(idOf(await run(cow, { op: 'create', item: { id: 's1' } }))).toBe('s1');
    expect(ids(await run(cow, { op: 'list' }))).toEqual(['s2', w, w2, 's1']);
    expect(await run(cow, { op: 'count' })).toEqual({ kind: 'count', count: 4 });
  });

  it(`merges a part of the journal once it holds ${MERGE_AT} rows, every create kept in its session's order`, async () => {
    const ref = await setup();
    const made: Record<string, string[]> = { a: [], b: [], c: [] };
    // in turns of 100 creates over three sessions, committed together as under load
    for (let turn = 0; turn * 100 < 3 * MERGE_AT + 450; turn++) {
      const out = await Promise.all(['a', 'b', 'c'].map((s, i) => fresh(ref, s, 30 + i * 5)));
      for (const [i, s] of ['a', 'b', 'c'].entries()) made[s].push(...out[i]);
    }
    const total = made.a.length + made.b.length + made.c.length;
    // three copies, three parts, each given more than a merge's rows
    expect(new Set(['a', 'b', 'c'].map((s) => copyOf(s) % PARTS)).size).toBe(3);
    expect(Math.min(made.a.length, made.b.length, made.c.length)).toBeGreaterThan(MERGE_AT);
    // each merged at least once, and nothing since its last merge is in the items
    for (const s of ['a', 'b', 'c']) expect(part(copyOf(s) % PARTS)).toBeLessThan(MERGE_AT);
    expect(journal() + items()).toBe(total + 6);
    expect(pending('a') + pending('b') + pending('c')).toBe(journal());
    for (const s of ['a', 'b', 'c']) {
      expect(ids(await run({ ...ref, session: s }, { op: 'list' }))).toEqual(['s1', 's2', ...made[s]]);
      expect(await run({ ...ref, session: s }, { op: 'count' })).toEqual({ kind: 'count', count: made[s].length + 2 });
    }
  });

  it('answers every create while a merge fails, reports the failure, and merges at a later commit once it can', async () => {
    const ref = await setup();
    const exec = (sql: string) => onFile((d) => d.exec(sql));
    const problems: [string, string][] = [];
    store.on('problem', (where: string, err: Error) => problems.push([where, err.message]));
    await run(ref, { op: 'list' }); // the session's copy of the seed, made before inserts fail
    // every insert into the items fails while this trigger is there (a merge is such an insert)
    exec(`CREATE TRIGGER items_refused BEFORE INSERT ON collection_items BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    const made = await fresh(ref, 'a', MERGE_AT + 20);
    expect(made.every((id) => /^[0-9a-f-]{36}$/.test(id))).toBe(true);
    expect(journal()).toBe(MERGE_AT + 20);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toEqual(['merging the collection creates’ journal', 'refused']);
    // the failed merge dropped the known copies: read from its row again, the copy counts its
    // journal rows rather than merge them, so its creates and its count still answer
    const during = await fresh(ref, 'a', 5);
    expect(await run(ref, { op: 'count' })).toEqual({ kind: 'count', count: 2 + MERGE_AT + 25 });
    expect(journal()).toBe(MERGE_AT + 25);
    // a list needs the rows: it merges first, and fails with the merge
    await expect(run(ref, { op: 'list' })).rejects.toThrow('refused');
    exec('DROP TRIGGER items_refused');
    // merged at the next commit (the part is due), the new create with the rest
    const more = await fresh(ref, 'a', 1);
    expect([journal(), items()]).toEqual([0, 2 + MERGE_AT + 26]);
    expect(ids(await run(ref, { op: 'list' }))).toEqual(['s1', 's2', ...made, ...during, ...more]);
    expect(counted('a')).toMatchObject({ items: 2 + MERGE_AT + 26, last_ord: 2 + MERGE_AT + 26 });
  });

  it('takes a copy’s journal rows along when the copy is reset, forgotten or its collection deleted', async () => {
    const ref = await setup();
    await fresh(ref, 'a', 3);
    const b = await fresh(ref, 'b', 2);
    await fresh(ref, 'c', 1);
    expect(journal()).toBe(6);
    await store.collections.reset(owner, projectId, 'items', 'a');
    expect([journal(), pending('b'), pending('c')]).toEqual([3, 2, 1]);
    await store.mockSessions.forget(projectId, 'c');
    expect(journal()).toBe(2);
    // a new copy of session a, whatever row id it gets, starts from the seed alone
    expect(ids(await run(ref, { op: 'list' }))).toEqual(['s1', 's2']);
    expect(ids(await run({ ...ref, session: 'b' }, { op: 'list' }))).toEqual(['s1', 's2', ...b]);
    await fresh(ref, 'a', 1);
    await fresh(ref, 'b', 2);
    expect(journal()).toBe(3);
    await store.collections.delete(owner, projectId, 'items');
    expect([journal(), items(), count('SELECT COUNT(*) FROM collection_sessions')]).toEqual([0, 0, 0]);
  });

  it('counts journaled creates on their copy’s row when merged: items, UTF-8 bytes, last position', async () => {
    const ref = await setup();
    await fresh(ref, 'a', 1);
    const made = await Promise.all(
      ['é', '€uro', '😀 emoji', 'plain'].map((n) => run(ref, { op: 'create', item: { n } }).then(idOf)),
    );
    const bytesOf = (r: CollectionResult) =>
      r.kind === 'items' ? r.raw.reduce((n, x) => n + Buffer.byteLength(x), 0) : -1;
    // the row counts the seed alone while the creates wait in the journal
    expect(counted('a')).toMatchObject({ items: 2, last_ord: 2 });
    expect(pending('a')).toBe(5);
    expect(await run(ref, { op: 'count' })).toEqual({ kind: 'count', count: 7 });
    const list = await run(ref, { op: 'list' });
    expect(ids(list).slice(3)).toEqual(made);
    expect(counted('a')).toEqual({ items: 7, bytes: bytesOf(list), last_ord: 7 });
    // after a restart the copy is read from its row, and what its part holds of it counted (not merged)
    const more = await fresh(ref, 'a', 2);
    // and only what is the copy's: sessions whose copies share its part wait there too
    for (const s of ['e0', 'e1', 'e2', 'e3']) await fresh(ref, s, 3);
    expect(part(copyOf('a') % PARTS)).toBe(2 + 3);
    await file.close(store);
    store = await open();
    expect(await run(ref, { op: 'count' })).toEqual({ kind: 'count', count: 9 });
    expect(pending('a')).toBe(2);
    const after = await run(ref, { op: 'list' });
    expect(pending('a')).toBe(0);
    expect(ids(after).slice(7)).toEqual(more);
    expect(counted('a')).toEqual({ items: 9, bytes: bytesOf(after), last_ord: 9 });
  });

  it('counts the bytes of a copy’s journal rows toward the session’s cap when it reads the copy again', async () => {
    const ref = await setup();
    const item = { pad: 'x'.repeat(60_000) };
    const size = Buffer.byteLength(JSON.stringify({ ...item, id: '00000000-0000-0000-0000-000000000000' }));
    // as many as fit under the cap (fewer than a merge's rows), 20 a commit: the part is merged
    // whenever it holds MERGE_CHARS of JSON, so the last ones wait in the journal
    const fit = Math.floor((COLLECTION_CAPS.sessionBytes - 200) / size);
    expect(fit).toBeLessThan(MERGE_AT);
    for (let i = 0; i < fit; i += 20) {
      const n = Math.min(20, fit - i);
      await Promise.all(Array.from({ length: n }, () => run({ ...ref, session: 'a' }, { op: 'create', item })));
    }
    expect(pending('a')).toBeGreaterThan(0);
    expect(pending('a')).toBeLessThan(fit);
    expect(pending('a') * size).toBeLessThan(MERGE_CHARS + 20 * size);
    await file.close(store);
    store = await open();
    expect(await run({ ...ref, session: 'a' }, { op: 'create', item })).toMatchObject({ kind: 'too_large' });
    expect(await run({ ...ref, session: 'a' }, { op: 'count' })).toEqual({ kind: 'count', count: fit + 2 });
  });

  it('keeps what a merge’s savepoint copies of the pages it changes in memory, never in a temporary file', async () => {
    const ref = await setup();
    // 160 sessions, each with 60 items merged, then 3 more in the journal: a merge of a part
    // changes a page or more of the items' key for each of its ~40 sessions (> 64 KiB, where
    // SQLite spills a savepoint's copies to a file unless temporary files are kept in memory)
    const sessions = Array.from({ length: 160 }, (_, i) => `t${i}`);
    for (const s of sessions) await fresh(ref, s, 60);
    for (const s of sessions) await run({ ...ref, session: s }, { op: 'list' });
    for (const s of sessions) await fresh(ref, s, 3);
    const k = copyOf('t0') % PARTS;
    expect(part(k)).toBeGreaterThanOrEqual(40 * 3);
    /** write calls of this thread (SQLite runs on it: better-sqlite3 is synchronous) */
    const writes = () => Number(/syscw: (\d+)/.exec(fs.readFileSync('/proc/thread-self/io', 'utf8'))?.[1]);
    const merge = `INSERT INTO collection_items (copy, item_id, ord, data)
      SELECT copy, item_id, ord, data FROM ${journalTable(k)} ORDER BY copy, item_id`;
    // the same merge on a connection of SQLite's defaults writes its copies to a file (rolled back)
    const spilled = onFile((d) => {
      d.exec('BEGIN; SAVEPOINT m');
      const w = writes();
      d.exec(`${merge}; DELETE FROM ${journalTable(k)}`);
      const n = writes() - w;
      d.exec('ROLLBACK');
      return n;
    });
    expect(spilled).toBeGreaterThan(0);
    // the store's own merge, in its savepoint inside a transaction: nothing written until the commit
    const hot = store.hot as unknown as { tx<T>(f: () => T): T; collections: { mergePart(k: number): void } };
    let during = -1;
    hot.tx(() => {
      const w = writes();
      hot.tx(() => hot.collections.mergePart(k));
      during = writes() - w;
    });
    expect(during).toBe(0);
    expect(part(k)).toBe(0);
    expect(ids(await run({ ...ref, session: 't0' }, { op: 'list' })).length).toBe(2 + 63);
  });

  it('merges a journal its copies’ rows counted (migration 0021) when migration 0022 runs', async () => {
    const ref = await setup();
    const a = await fresh(ref, 'a', 3);
    const b = await fresh(ref, 'b', 2);
    await file.close(store);
    const parts = Array.from({ length: PARTS }, (_, k) => `SELECT copy, ord, data FROM ${journalTable(k)}`);
    const of = (what: string) => `(SELECT ${what} FROM j WHERE copy = collection_sessions.id)`;
    onFile((d) => {
      // as 0021 left it: each row counting its journal rows too, and the triggers that read pending
      d.exec(`BEGIN;
        WITH j AS (${parts.join(' UNION ALL ')})
        UPDATE collection_sessions SET items = items + ${of('COUNT(*)')},
          bytes = bytes + ${of('COALESCE(SUM(LENGTH(CAST(data AS BLOB))), 0)')},
          last_ord = MAX(last_ord, ${of('COALESCE(MAX(ord), 0)')}), pending = ${of('COUNT(*)')};
        ${Array.from({ length: PARTS }, (_, k) => `DROP TRIGGER ${journalTrigger(k)};`).join('\n')}
        ${SQLITE_PENDING.filter((q) => q.startsWith('CREATE TRIGGER')).join(';\n')};
        DELETE FROM kysely_migration WHERE name = '0022_sqlite_journal_uncounted';
        COMMIT;`);
      expect(d.prepare('SELECT SUM(pending) FROM collection_sessions').pluck().get()).toBe(5);
    });
    store = await open();
    expect([journal(), items()]).toEqual([0, 9]);
    expect(await run(ref, { op: 'count' })).toEqual({ kind: 'count', count: 5 });
    expect(ids(await run(ref, { op: 'list' }))).toEqual(['s1', 's2', ...a]);
    expect(ids(await run({ ...ref, session: 'b' }, { op: 'list' }))).toEqual(['s1', 's2', ...b]);
    expect(counted('b')).toMatchObject({ items: 4, last_ord: 4 });
    // the triggers take a copy's journal rows along whatever its pending (which stays 0)
    await fresh(ref, 'b', 2);
    await store.collections.reset(owner, projectId, 'items', 'b');
    expect([journal(), count('SELECT SUM(pending) FROM collection_sessions')]).toEqual([0, 0]);
  });

  it('keeps the journal over a restart, and a second store on the same file sees and merges it', async () => {
    const ref = await setup();
    const a = await fresh(ref, 'a', 4);
    await file.close(store);
    store = await open();
    expect(journal()).toBe(4);
    const other = await open();
    const b = await fresh(ref, 'b', 2, other);
    expect(await run({ ...ref, session: 'b' }, { op: 'get', id: b[1] })).toMatchObject({ item: { id: b[1] } });
    expect(journal()).toBe(4);
    expect(ids(await run(ref, { op: 'list' }, other))).toEqual(['s1', 's2', ...a]);
    expect(await run(ref, { op: 'create', item: { id: a[0] } }, other)).toEqual({ kind: 'conflict' });
  });
});
