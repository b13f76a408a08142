/**
 * The WAL pre-sync on a real SQLite file: it syncs the WAL when it changed since the last sync and
 * not otherwise, waits for the WAL to exist, and a store on a file closes it with itself.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from './index.js';
import { WalPresync } from './wal-presync.js';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-wal-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('WalPresync', () => {
  it('syncs the WAL once per change, and not while nothing is written', async () => {
    const file = path.join(tmp(), 'a.db');
    const db = new SqliteDatabase(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const presync = new WalPresync(`${file}-wal`, 0);
    try {
      db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)');
      const put = db.prepare('INSERT INTO t VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v');
      put.run('a', 1);
      await presync.tick();
      expect(presync.synced).toBe(1);
      await presync.tick();
      await presync.tick();
      expect(presync.synced).toBe(1);
      put.run('a', 2);
      await presync.tick();
      expect(presync.synced).toBe(2);
      // ticks asked while one runs share it
      put.run('a', 3);
      await Promise.all([presync.tick(), presync.tick(), presync.tick()]);
      expect(presync.synced).toBe(3);
    } finally {
      await presync.close();
      db.close();
    }
  });

  it('does nothing until the WAL exists, then syncs it', async () => {
    const file = path.join(tmp(), 'b.db');
    const presync = new WalPresync(`${file}-wal`, 0);
    try {
      await presync.tick();
      expect(presync.synced).toBe(0);
      const db = new SqliteDatabase(file);
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE t (k TEXT)');
      await presync.tick();
      expect(presync.synced).toBe(1);
      db.close();
    } finally {
      await presync.close();
    }
    // closed: no more syncs
    await presync.tick();
    expect(presync.synced).toBe(1);
  });

  it('runs with a store on a file and closes with it (no open descriptor of the WAL left)', async () => {
    const file = path.join(tmp(), 'c.db');
    const store = await openStore(`sqlite:${file}`);
    await store.users.create('wal@example.test', 'h');
    // descriptors of the WAL in this process: SQLite's own, and the pre-sync's once it has opened it
    // (an unlinked WAL reads as "<file>-wal (deleted)")
    const walFds = () =>
      fs.readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${file}-wal`);
        } catch {
          return false;
        }
      }).length;
    // the timer (100 ms) opens the WAL on its first tick after the write
    await expect.poll(walFds, { timeout: 5000 }).toBe(2);
    await store.close();
    expect(walFds()).toBe(0);
  });
});
