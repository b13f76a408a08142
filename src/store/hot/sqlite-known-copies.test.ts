/**
 * The copies SQLite's collection commands know (sqlite-collections.ts): a session's copy is read by
 * its key once and then taken from memory. Whatever removes or rewrites a copy behind those commands
 * — a reset, a forgotten or idle session, the session cap, a seed changed, a collection or project
 * deleted, another connection to the file, a commit rolled back — the next command answers from the
 * database's copy, never from the one it knew.
 */
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { itemId, listedIds, sqliteStores, TWO_ITEMS } from '../../../test/helpers/sqlite-stores.js';
import { itemsCollection } from '../../../test/helpers/store-records.js';
import type { Store } from '../index.js';
import { journalTable } from '../migrations/sqlite-pending.js';
import type { CollectionCommand, CollectionRef } from './collections.js';
import { KNOWN_COPIES, PARTS } from './sqlite-collections.js';

describe('the collection copies a SQLite store knows', () => {
  const file = sqliteStores();
  afterEach(() => file.drop());
  const { open, journal } = file;
  let owner = '';
  let projectId = '';
  let store: Store;
  let ref: CollectionRef;
  const run = (cmd: CollectionCommand, session = 'a', s = store) => s.hot.collection({ ...ref, session }, cmd);
  /** `n` creates without an id, committed together: the ids made */
  const fresh = async (n: number, session = 'a', s = store) =>
    (await Promise.all(Array.from({ length: n }, (_, i) => run({ op: 'create', item: { n: i } }, session, s)))).map(
      itemId,
    );
  /** the list's ids and the count, as the store answers them */
  const state = async (session = 'a', s = store) => ({
    ids: listedIds(await run({ op: 'list' }, session, s)),
    count: ((await run({ op: 'count' }, session, s)) as { count: number }).count,
  });

  /** A store whose session `a` has a known copy with items of its own: the ids it made. */
  async function known(): Promise<string[]> {
    store = await open();
    ({ owner, projectId, ref } = await itemsCollection(store, TWO_ITEMS));
    const made = await fresh(3);
    expect(await state()).toEqual({ ids: ['s1', 's2', ...made], count: 5 });
    return made;
  }

  /** After the copy of session `a` was removed: the session starts again from the seed. */
  async function startsAgain() {
    expect(await state()).toEqual({ ids: ['s1', 's2'], count: 2 });
    const more = await fresh(2);
    expect(await state()).toEqual({ ids: ['s1', 's2', ...more], count: 4 });
  }

  it('reads a copy reset by the API again', async () => {
    await known();
    await store.collections.reset(owner, projectId, 'items', 'a');
    await startsAgain();
  });

  it('reads a copy of a forgotten session again', async () => {
    await known();
    await store.mockSessions.forget(projectId, 'a');
    await startsAgain();
  });

  it('reads a copy forgotten as idle, or over the session cap, again', async () => {
    await known();
    await store.mockSessions.expire(-1_000);
    await startsAgain();
    expect(await store.mockSessions.trim(0)).toBe(1);
    await startsAgain();
  });

  it('reads a copy cleared by a changed seed, or by its collection deleted and made again, again', async () => {
    await known();
    await store.collections.update(owner, projectId, 'items', { idField: 'id', seed: [{ id: 'n1' }] });
    ref = { ...ref, seed: [{ id: 'n1' }] };
    expect(await state()).toEqual({ ids: ['n1'], count: 1 });
    await store.collections.delete(owner, projectId, 'items');
    await store.collections.create(owner, projectId, 'items', { idField: 'id', seed: TWO_ITEMS });
    ref = { ...ref, seed: TWO_ITEMS };
    await startsAgain();
  });

  it('refuses a command for a deleted project rather than write into its gone copy', async () => {
    await known();
    await store.projects.delete(owner, projectId);
    await expect(run({ op: 'create', item: { n: 9 } })).rejects.toThrow();
    expect(journal()).toBe(0);
  });

  it('sees what another connection to the file wrote', async () => {
    const made = await known();
    const other = await open();
    const theirs = await fresh(2, 'a', other);
    expect(await state()).toEqual({ ids: ['s1', 's2', ...made, ...theirs], count: 7 });
    const mine = await fresh(1);
    expect(await state('a', other)).toEqual({ ids: ['s1', 's2', ...made, ...theirs, ...mine], count: 8 });
    await other.collections.reset(owner, projectId, 'items', 'a');
    await startsAgain();
  });

  /** The store's hot state, as far as these tests reach into it: its connection and careful commits. */
  const hot = () => store.hot as unknown as { db: Database.Database; carefulCommits: number };
  /** Creates naming `word` fail while `fails()` says so: a trigger on the store's own connection. */
  const failing = (word: string, fails: () => boolean) => {
    const { db: conn } = hot();
    conn.function(`fail_${word}`, () => {
      if (fails()) throw new Error(`refused: ${word}`);
      return 0;
    });
    for (let k = 0; k < PARTS; k++)
      conn.exec(`CREATE TEMP TRIGGER fail_${word}_${k} BEFORE INSERT ON main.${journalTable(k)}
        WHEN NEW.data LIKE '%${word}%' BEGIN SELECT fail_${word}(); END`);
  };
  const threeCreates = (middle: string) =>
    Promise.allSettled([
      run({ op: 'create', item: { n: 'kept' } }),
      run({ op: 'create', item: { n: middle } }),
      run({ op: 'create', item: { n: 'kept too' } }),
    ]);

  it('counts each create once when a commit rolled back and ran again, each op on its own', async () => {
    await known();
    let first = true;
    // fails once: the commit is rolled back whole, and its second, careful run writes all three
    failing('once', () => {
      const was = first;
      first = false;
      return was;
    });
    const careful = hot().carefulCommits;
    const out = await threeCreates('once');
    expect(out.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(hot().carefulCommits).toBe(careful + 1);
    expect(await run({ op: 'count' })).toEqual({ kind: 'count', count: 8 });
    expect((await state()).ids).toHaveLength(8);
  });

  it('writes a create once when a later command of its commit broke and the commit ran again', async () => {
    await known();
    const careful = hot().carefulCommits;
    const out = await Promise.allSettled([
      run({ op: 'create', item: { n: 'kept' } }),
      // JSON.stringify throws on a BigInt: the commit, the create's journal row still unwritten, rolls back
      run({ op: 'create', item: { n: 1n } }),
    ]);
    expect(out.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    expect(hot().carefulCommits).toBe(careful + 1);
    expect(journal()).toBe(1);
    expect(await state()).toMatchObject({ count: 6 });
    expect((await state()).ids).toHaveLength(6);
  });

  it('counts a create of its commit in a copy read again after more copies than it keeps', async () => {
    await known();
    // one commit: a create in a, enough sessions' creates to drop a from what is known, a again
    const asked = [run({ op: 'create', item: { n: 'first' } })];
    for (let i = 0; i < KNOWN_COPIES; i++) asked.push(run({ op: 'create', item: { i } }, `o${i}`));
    asked.push(run({ op: 'count' }));
    const out = await Promise.all(asked);
    expect(out.at(-1)).toEqual({ kind: 'count', count: 6 });
    expect(await state()).toMatchObject({ count: 6 });
  });

  it('counts none of a create that failed, and each of its commit’s others once', async () => {
    await known();
    failing('refused', () => true);
    const out = await threeCreates('refused');
    expect(out.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await state()).toMatchObject({ count: 7 });
    expect((await state()).ids).toHaveLength(7);
  });
});
