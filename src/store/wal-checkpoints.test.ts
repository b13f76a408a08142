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
import { CYCLE_FAILED, WalCheckpoints, type WalCheckpointsOptions } from './wal-checkpoints.js';

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

/** Commits `perTurn` rows a turn of the event loop (while `when` holds) until stopped, as a flood of creates does. */
function writer(put: () => unknown, perTurn = 20, when: () => boolean = () => true) {
  let n = 0;
  let on = true;
  const turn = () => {
    if (!on) return;
    if (when()) {
      for (let k = 0; k < perTurn; k++) put();
      n += perTurn;
    }
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

interface Cycle {
  file: string;
  db: SqliteDatabase.Database;
  put: () => unknown;
  cp: WalCheckpoints;
}

/** A cycle without its timer over a fresh database; both closed after `body`, whatever it does. */
async function withCycle(opts: WalCheckpointsOptions, body: (t: Cycle) => Promise<void>): Promise<string> {
  const file = path.join(tmp(), 'w.db');
  const { db, put } = database(file);
  const cp = new WalCheckpoints(db, file, { everyMs: 0, ...opts });
  try {
    await body({ file, db, put, cp });
  } finally {
    await cp.close();
    db.close();
  }
  return file;
}

/** The WAL's frames, read from its header in the wal-index (walformat: mxFrame at byte 16). */
function walFrames(file: string): number {
  const b = fs.readFileSync(`${file}-shm`).subarray(0, 48);
  return b.readUInt32LE(16);
}

/** A sync that fails (EIO) for the files named in `on`; `synced` lists the files it was asked to sync. */
function faults() {
  const on = new Set<'wal' | 'database'>();
  const synced: string[] = [];
  const sync = (fd: number) => {
    const which = fs.readlinkSync(`/proc/self/fd/${fd}`).endsWith('-wal') ? 'wal' : 'database';
    synced.push(which);
    if (on.has(which)) return Promise.reject(Object.assign(new Error(`EIO: the ${which}`), { code: 'EIO' }));
    return new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
  };
  return { on, synced, sync };
}

/** The store's connection a cycle copies on. */
const db = (cp: WalCheckpoints) => (cp as unknown as { main: SqliteDatabase.Database }).main;

describe('WalCheckpoints', () => {
  it('copies up to its guard while a writer goes on, restarts the WAL once long, and loses no row', async () => {
    let rows = 0;
    const file = await withCycle({ restartAt: 200 }, async ({ file, db, put, cp }) => {
      const w = writer(put);
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
        // the writer committed during the cycles' syncs: their copies stopped at the guard, never
        // past what the cycle had synced
        expect(partial).toBeGreaterThan(0);
        expect(unsynced).toBe(0);
        // the WAL restarted (nothing else checkpoints here): without the cycle it would hold every
        // frame written, one or more a commit
        expect(cp.counts.full).toBeGreaterThan(0);
        expect(rows).toBeGreaterThan(2000);
        expect(mostFrames).toBeLessThan(rows / 4);
      } finally {
        w.stop();
      }
    });
    const again = new SqliteDatabase(file);
    expect(again.pragma('integrity_check', { simple: true })).toBe('ok');
    const { n } = again.prepare('SELECT count(*) AS n FROM t').get() as { n: number };
    expect(n).toBe(rows);
    again.close();
  });

  it('syncs and copies once per change of the WAL, and nothing while it is unchanged', async () => {
    await withCycle({}, async ({ put, cp }) => {
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
    });
  });

  it('copies nothing it cannot pin: every frame copied when the guard began, then a writer commits', async () => {
    await withCycle({}, async ({ db, put, cp }) => {
      put();
      await cp.tick();
      expect(cp.counts.copied).toBe(1);
      const first = cp.lastCopy;
      put();
      // every frame copied: a guard that begins now reads the database alone and pins nothing
      db.pragma('wal_checkpoint(PASSIVE)');
      // a row a turn, only while the guard's transaction is open (during the WAL's sync)
      const guard = () => (cp as unknown as { guard: { db: SqliteDatabase.Database } | null }).guard?.db;
      const w = writer(put, 1, () => guard()?.inTransaction === true);
      try {
        await cp.tick();
      } finally {
        w.stop();
      }
      expect(w.rows()).toBeGreaterThan(0);
      // the frames written meanwhile were not synced by the cycle: none copied
      expect(cp.counts).toEqual({ synced: 2, copied: 1, full: 0 });
      expect(cp.lastCopy).toBe(first);
    });
  });

  it('leaves the store connection alone while it has a transaction open', async () => {
    await withCycle({}, async ({ db, put, cp }) => {
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
    });
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

  it('reports a failed sync of the WAL, copies nothing, and syncs and copies at the next cycle', async () => {
    const problems: [string, string][] = [];
    const failing = faults();
    const opts = { report: (where: string, err: unknown) => problems.push([where, (err as Error).message]) };
    await withCycle({ ...opts, sync: failing.sync }, async ({ file, put, cp }) => {
      put();
      failing.on.add('wal');
      await cp.tick();
      expect(problems).toEqual([[CYCLE_FAILED, 'EIO: the wal']]);
      expect(cp.counts).toEqual({ synced: 0, copied: 0, full: 0 });
      expect(cp.lastCopy).toBeNull();
      failing.on.clear();
      // the WAL has not changed since, and is synced again all the same
      await cp.tick();
      expect(cp.counts).toEqual({ synced: 1, copied: 1, full: 0 });
      expect(failing.synced).toEqual(['wal', 'wal', 'database']);
      expect(walFrames(file)).toBeGreaterThan(0);
    });
  });

  it('keeps the WAL from restarting after a failed sync of the database, until a later cycle syncs it', async () => {
    const problems: string[] = [];
    const failing = faults();
    const opts = { report: (where: string, err: unknown) => problems.push(`${where}: ${(err as Error).message}`) };
    await withCycle({ ...opts, sync: failing.sync }, async ({ file, put, cp }) => {
      const guard = () => (cp as unknown as { guard: { db: SqliteDatabase.Database } | null }).guard?.db;
      for (let i = 0; i < 5; i++) put();
      failing.on.add('database');
      await cp.tick();
      expect(problems).toEqual([`${CYCLE_FAILED}: EIO: the database`]);
      // the copy ran (SQLite counts every frame copied), but the guard's read still pins the WAL:
      // the next commit appends where a restart would write from the WAL's first frame again
      expect(cp.lastCopy).toMatchObject({ checkpointed: cp.lastCopy?.log });
      expect(guard()?.inTransaction).toBe(true);
      const frames = walFrames(file);
      put();
      expect(walFrames(file)).toBeGreaterThan(frames);
      // failing again: reported again, still held
      await cp.tick();
      expect(problems).toHaveLength(2);
      expect(guard()?.inTransaction).toBe(true);
      failing.on.clear();
      const asked = failing.synced.length;
      await cp.tick();
      expect(guard()?.inTransaction).toBe(false);
      expect(cp.counts.copied).toBeGreaterThan(0);
      // the database first, before the guard lets go
      expect(failing.synced[asked]).toBe('database');
      // released: the next commit that finds the WAL copied starts it over
      db(cp).pragma('wal_checkpoint(PASSIVE)');
      put();
      expect(walFrames(file)).toBeLessThan(frames);
    });
  });

  it('reports a store’s failed cycle as the store’s problem, and the store answers on', async () => {
    const file = path.join(tmp(), 'f.db');
    const failing = faults();
    failing.on.add('wal');
    const store = await openStore(`sqlite:${file}`, { checkpoints: { sync: failing.sync } });
    const problems: [string, string][] = [];
    store.on('problem', (where: string, err: Error) => problems.push([where, err.message]));
    try {
      await store.users.create('wal@example.test', 'h');
      // the store's own timer runs the cycle
      await expect.poll(() => problems.length, { timeout: 5000 }).toBeGreaterThan(0);
      expect(problems[0]).toEqual([CYCLE_FAILED, 'EIO: the wal']);
      expect(failing.synced).not.toContain('database');
      await store.users.create('on@example.test', 'h');
      expect(await store.users.findByEmail('on@example.test')).toMatchObject({ email: 'on@example.test' });
    } finally {
      await store.close();
    }
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
