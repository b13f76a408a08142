/**
 * The checkpoints' cycle on real SQLite files (wal-checkpoints.ts): while a writer goes on it copies
 * the WAL only up to what its guard saw and it had synced, restarts the WAL once long (SQLite's own
 * automatic checkpoint off here, so nothing else would), loses no row, copies nothing it cannot pin,
 * steps aside while the store's connection has a transaction open, and closes with a store.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from './index.js';
import { WalCheckpoints } from './wal-checkpoints.js';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-wal-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A database in WAL mode as the store opens it, without SQLite's automatic checkpoint. */
function database(file: string) {
  const db = new SqliteDatabase(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  const put = db.prepare('INSERT INTO t (v) VALUES (?)');
  return { db, put: () => put.run('x'.repeat(200)) };
}

/** Commits one row a turn of the event loop until stopped, as a flood of creates does. */
function writer(put: () => unknown) {
  let n = 0;
  let on = true;
  const turn = () => {
    if (!on) return;
    for (let k = 0; k < 20; k++) put();
    n += 20;
    setImmediate(turn);
  };
  setImmediate(turn);
  return {
    rows: () => n,
    stop: () => {
      on = false;
    },
  };
}

/** The WAL's frames, read from its header in the wal-index (walformat: mxFrame at byte 16). */
function walFrames(file: string): number {
  const b = fs.readFileSync(`${file}-shm`).subarray(0, 48);
  return b.readUInt32LE(16);
}

describe('WalCheckpoints', () => {
  it('copies up to its guard while a writer goes on, restarts the WAL once long, and loses no row', async () => {
    const file = path.join(tmp(), 'a.db');
    const { db, put } = database(file);
    const cp = new WalCheckpoints(db, file, { everyMs: 0, restartAt: 200 });
    const w = writer(put);
    let rows = 0;
    try {
      let partial = 0;
      let unsynced = 0;
      let mostFrames = 0;
      for (let i = 0; i < 60; i++) {
        await new Promise((r) => setTimeout(r, 5));
        await cp.tick();
        const last = cp.lastCopy;
        if (last !== null && last.checkpointed > 0 && last.checkpointed < last.log) partial++;
        if (last !== null && last.checkpointed > last.synced) unsynced++;
        mostFrames = Math.max(mostFrames, walFrames(file));
        // the copy ran without syncs; the connection's own level is back
        expect(db.pragma('synchronous', { simple: true })).toBe(1);
      }
      w.stop();
      rows = w.rows();
      // the writer committed during the cycles' syncs: their copies stopped at the guard, never past
      // what the cycle had synced
      expect(partial).toBeGreaterThan(0);
      expect(unsynced).toBe(0);
      // the WAL restarted (nothing else checkpoints here): without the cycle it would hold every
      // frame written, one or more a commit
      expect(cp.counts.full).toBeGreaterThan(0);
      expect(w.rows()).toBeGreaterThan(2000);
      expect(mostFrames).toBeLessThan(w.rows() / 4);
    } finally {
      w.stop();
      await cp.close();
      db.close();
    }
    const again = new SqliteDatabase(file);
    expect(again.pragma('integrity_check', { simple: true })).toBe('ok');
    const { n } = again.prepare('SELECT count(*) AS n FROM t').get() as { n: number };
    expect(n).toBe(rows);
    again.close();
  });

  it('syncs and copies once per change of the WAL, and nothing while it is unchanged', async () => {
    const file = path.join(tmp(), 'b.db');
    const { db, put } = database(file);
    const cp = new WalCheckpoints(db, file, { everyMs: 0 });
    try {
      put();
      await cp.tick();
      expect(cp.counts).toEqual({ synced: 1, copied: 1, full: 0 });
      // no writer: the guard saw the whole WAL, so that copy was all of it
      expect(cp.lastCopy?.checkpointed).toBe(cp.lastCopy?.log);
      await cp.tick();
      await cp.tick();
      expect(cp.counts.synced).toBe(1);
      put();
      // ticks asked while one runs share it
      await Promise.all([cp.tick(), cp.tick(), cp.tick()]);
      expect(cp.counts.synced).toBe(2);
    } finally {
      await cp.close();
      db.close();
    }
  });

  it('copies nothing it cannot pin: every frame copied when the guard began, then a writer commits', async () => {
    const file = path.join(tmp(), 'f.db');
    const { db, put } = database(file);
    const cp = new WalCheckpoints(db, file, { everyMs: 0 });
    // the guard's connection, to write only while its transaction is open (during the WAL's sync)
    const guard = () => (cp as unknown as { guard: SqliteDatabase.Database | null }).guard;
    let during = 0;
    let on = true;
    const turn = () => {
      if (!on) return;
      if (guard()?.inTransaction) {
        put();
        during++;
      }
      setImmediate(turn);
    };
    try {
      put();
      await cp.tick();
      expect(cp.counts.copied).toBe(1);
      const first = cp.lastCopy;
      put();
      // every frame copied: a guard that begins now reads the database alone and pins nothing
      db.pragma('wal_checkpoint(PASSIVE)');
      setImmediate(turn);
      await cp.tick();
      on = false;
      expect(during).toBeGreaterThan(0);
      // the frames written meanwhile were not synced by the cycle: none copied
      expect(cp.counts).toEqual({ synced: 2, copied: 1, full: 0 });
      expect(cp.lastCopy).toBe(first);
    } finally {
      on = false;
      await cp.close();
      db.close();
    }
  });

  it('leaves the store connection alone while it has a transaction open', async () => {
    const file = path.join(tmp(), 'c.db');
    const { db, put } = database(file);
    const cp = new WalCheckpoints(db, file, { everyMs: 0 });
    try {
      put();
      db.exec('BEGIN IMMEDIATE');
      put();
      await cp.tick();
      expect(cp.counts.copied).toBe(0);
      expect(db.inTransaction).toBe(true);
      db.exec('COMMIT');
      put();
      await cp.tick();
      expect(cp.counts.copied).toBe(1);
      expect((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n).toBe(3);
    } finally {
      await cp.close();
      db.close();
    }
  });

  it('does nothing until the WAL exists, and nothing once closed', async () => {
    const file = path.join(tmp(), 'd.db');
    const db = new SqliteDatabase(file);
    const cp = new WalCheckpoints(db, file, { everyMs: 0 });
    await cp.tick();
    expect(cp.counts.synced).toBe(0);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (k TEXT)');
    await cp.tick();
    expect(cp.counts.synced).toBe(1);
    await cp.close();
    db.exec("INSERT INTO t VALUES ('a')");
    await cp.tick();
    expect(cp.counts.synced).toBe(1);
    db.close();
  });

  it('runs with a store on a file and closes with it (no descriptor of its files left)', async () => {
    const file = path.join(tmp(), 'e.db');
    const store = await openStore(`sqlite:${file}`);
    await store.users.create('wal@example.test', 'h');
    // descriptors in this process: SQLite's own, the guard's connection's and the cycle's (an
    // unlinked WAL reads as "<file>-wal (deleted)")
    const fds = (name: string) =>
      fs.readdirSync('/proc/self/fd').filter((fd) => {
        try {
          const to = fs.readlinkSync(`/proc/self/fd/${fd}`);
          return to === name || to.startsWith(`${name} `);
        } catch {
          return false;
        }
      }).length;
    // the timer (100 ms) opens the WAL and the guard on its first tick after the write
    await expect.poll(() => fds(`${file}-wal`), { timeout: 5000 }).toBe(3);
    await expect.poll(() => fds(file), { timeout: 5000 }).toBe(3);
    await store.close();
    expect(fds(`${file}-wal`)).toBe(0);
    expect(fds(`${file}-shm`)).toBe(0);
    expect(fds(file)).toBe(0);
  });
});
