/**
 * A merge of the creates' journal adds each copy's journaled creates to its row (items, UTF-8 bytes,
 * last position: sqlite-journal.ts). It takes them from what the process counted as it wrote them,
 * and from a pass over the part whenever that may not be what the part holds — after a restart, a
 * write by another connection, a copy's row deleted (its row id may be given again), a rolled-back
 * commit. Either way the row ends as a count of the copy's items would make it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { itemId, listedIds, sqliteStores, TWO_ITEMS } from '../../../test/helpers/sqlite-stores.js';
import { itemsCollection } from '../../../test/helpers/store-records.js';
import type { Store } from '../index.js';
import { journalTable } from '../migrations/sqlite-pending.js';
import type { CollectionCommand, CollectionRef } from './collections.js';
import { MERGE_AT, PARTS } from './sqlite-journal.js';

/** items of several widths of UTF-8 (1 to 4 bytes a character) */
const NAMES = ['plain', 'é', '€uro', '😀 emoji', 'ünïcödé 中文'];

describe('the counts a merge of the creates’ journal adds to each copy', () => {
  const file = sqliteStores();
  afterEach(() => file.drop());
  const { open, onFile, count, part } = file;
  let owner = '';
  let projectId = '';
  let store: Store;
  const run = (ref: CollectionRef, cmd: CollectionCommand, s = store) => s.hot.collection(ref, cmd);
  /** `n` creates in session `session`, committed together (the store makes the ids) */
  const fresh = async (ref: CollectionRef, session: string, n: number, s = store) =>
    (
      await Promise.all(
        Array.from({ length: n }, (_, i) =>
          run({ ...ref, session }, { op: 'create', item: { name: NAMES[i % NAMES.length], i } }, s),
        ),
      )
    ).map(itemId);
  /** merges whose copies' counts came from what the store counted (not from a pass over the part) */
  const tallied = (s = store) =>
    (s.hot as unknown as { collections: { journal: { tallied: number } } }).collections.journal.tallied;
  const copyOf = (session: string) => count('SELECT id FROM collection_sessions WHERE session = ?', session);
  /** the copy's row, and its counts as its items and journal rows make them */
  const counts = (session: string) =>
    onFile((d) => {
      const row = d
        .prepare('SELECT id, items, bytes, last_ord FROM collection_sessions WHERE session = ?')
        .get(session) as { id: number; items: number; bytes: number; last_ord: number };
      const stored = d
        .prepare(
          `SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(CAST(data AS BLOB))), 0) AS b, COALESCE(MAX(ord), 0) AS m
           FROM collection_items WHERE copy = ?`,
        )
        .get(row.id) as { n: number; b: number; m: number };
      const journaled = count(`SELECT COUNT(*) FROM ${journalTable(row.id % PARTS)} WHERE copy = ?`, row.id);
      return {
        row: { items: row.items, bytes: row.bytes, last: row.last_ord },
        rows: { items: stored.n, bytes: stored.b, last: stored.m },
        journaled,
      };
    });
  /** the session's row counts exactly its merged items (its journal rows all merged) */
  const exact = (session: string) => {
    const c = counts(session);
    expect(c.journaled).toBe(0);
    expect(c.row).toEqual(c.rows);
  };

  async function setup(): Promise<CollectionRef> {
    store = await open();
    const made = await itemsCollection(store, TWO_ITEMS);
    ({ owner, projectId } = made);
    return made.ref;
  }

  it('counts each copy’s creates as it writes them, and a merge adds those counts: the rows end exact', async () => {
    const ref = await setup();
    const sessions = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    // turns of creates over every session (two copies a part, 12–16 rows a part a turn), committed
    // together as under load, until every part was merged because it was full
    for (let turn = 0; turn < Math.ceil(MERGE_AT / 12) + 4; turn++)
      await Promise.all(sessions.map((s, i) => fresh(ref, s, 6 + (i % 3))));
    expect(new Set(sessions.map((s) => copyOf(s) % PARTS)).size).toBe(PARTS);
    expect(tallied()).toBeGreaterThanOrEqual(PARTS);
    // a list needs its copy's rows: the rest of its part merged, from the counts kept too
    const before = tallied();
    for (const s of sessions) {
      const list = await run({ ...ref, session: s }, { op: 'list' });
      exact(s);
      expect(listedIds(list).length).toBe(counts(s).row.items);
    }
    expect(tallied()).toBeGreaterThan(before);
    expect(file.journal()).toBe(0);
  });

  it('counts from the part after a restart, then from what it writes once the part was merged', async () => {
    const ref = await setup();
    await fresh(ref, 'a', 7);
    await file.close(store);
    store = await open();
    // the part held rows when the store opened: its merge counts them from the part
    await fresh(ref, 'a', 5);
    await run(ref, { op: 'list' });
    expect(tallied()).toBe(0);
    exact('a');
    // emptied by that merge: what it gets from here on is counted as written
    await fresh(ref, 'a', 9);
    await run(ref, { op: 'list' });
    expect(tallied()).toBe(1);
    exact('a');
  });

  it('counts from the part once a copy’s row was deleted, whose row id a new copy may get again', async () => {
    const ref = await setup();
    await fresh(ref, 'a', 3);
    await fresh(ref, 'b', 4);
    const old = copyOf('b');
    // b's row is the last one: a copy made after it is deleted gets its row id again
    await store.collections.reset(owner, projectId, 'items', 'b');
    await fresh(ref, 'b', 2);
    expect(copyOf('b')).toBe(old);
    await run({ ...ref, session: 'b' }, { op: 'list' });
    exact('b');
    // a copy's row deleted by an idle expiry or a forget is no different
    await fresh(ref, 'c', 3);
    await store.mockSessions.forget(projectId, 'c');
    await fresh(ref, 'c', 5);
    await run({ ...ref, session: 'c' }, { op: 'list' });
    exact('c');
    await run(ref, { op: 'list' });
    exact('a');
  });

  it('counts a part another store on the same file wrote to, with its own creates', async () => {
    const ref = await setup();
    const other = await open();
    for (let i = 0; i < 3; i++) {
      await fresh(ref, 'a', 4);
      await fresh(ref, 'a', 3, other);
    }
    expect(count(`SELECT COUNT(*) FROM ${journalTable(copyOf('a') % PARTS)}`)).toBe(21);
    await run(ref, { op: 'list' });
    exact('a');
    expect(part(copyOf('a') % PARTS)).toBe(0);
    // and the other store, whose counts of the part the merge made wrong, goes on exact
    await fresh(ref, 'a', 2, other);
    await fresh(ref, 'a', 6);
    await run(ref, { op: 'list' }, other);
    exact('a');
  });

  it('counts from the part after a merge rolled back, and exact again once it merges', async () => {
    const ref = await setup();
    const exec = (sql: string) => onFile((d) => d.exec(sql));
    await fresh(ref, 'a', 4);
    exec(`CREATE TRIGGER items_refused BEFORE INSERT ON collection_items BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    await expect(run(ref, { op: 'list' })).rejects.toThrow('refused');
    exec('DROP TRIGGER items_refused');
    await fresh(ref, 'a', 3);
    await run(ref, { op: 'list' });
    exact('a');
    await fresh(ref, 'a', 2);
    await run(ref, { op: 'list' });
    exact('a');
  });
});
