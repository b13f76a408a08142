/**
 * SQLite's checkpoints kept off the event loop's critical path (docs/architecture.md, "Checkpoints
 * beside the commits").
 *
 * In WAL mode with `synchronous = NORMAL` a commit does not sync, but a checkpoint does, on the
 * thread that runs it — our event loop: it fsyncs the WAL before it copies frames into the database,
 * and fsyncs the database after copying when it copied the whole WAL (so the next commit may write
 * the WAL from its start again). At S8's creates those two syncs were most of a checkpoint's pause
 * (`PICK=random node bench/store-creates.mjs`, a turn's p99.9 ~20 ms, with the syncs off ~4.5 ms).
 *
 * So every `everyMs` (250), when the WAL changed, a cycle here:
 * 1. opens a read transaction on a connection of its own (the guard): it holds a read mark at the
 *    WAL's end as it is, so no checkpoint copies a frame past it, and the WAL cannot restart while
 *    it is open (the wal-index says whether it holds one: none when every frame was copied already);
 * 2. fdatasyncs the WAL from libuv's thread pool — every frame up to the guard is then durable;
 * 3. copies those frames on the store's connection: a PASSIVE checkpoint (it never waits) with
 *    `synchronous = OFF` for its length, so without SQLite's two syncs — the WAL's is done (2), and
 *    the database's comes next, before the WAL may restart;
 * 4. fdatasyncs the database from the thread pool, and closes the guard's transaction;
 * 5. once the WAL holds `restartAt` frames, checkpoints as SQLite does (`synchronous = NORMAL`, both
 *    syncs, on the loop), without the guard: it copies only what came during steps 2–4 and its syncs
 *    write only that, and the next commit restarts the WAL.
 * SQLite's order is kept: a frame is copied only once the WAL is synced past it, and the WAL starts
 * over only once the database is synced. The guard is an ordinary reader, and a cycle that cannot
 * pin the WAL (another connection wrote while the guard began) copies nothing: what survives a
 * crash or a power loss is what did before. The store's connection keeps SQLite's automatic
 * checkpoint at a multiple of `restartAt` as a backstop (store/index.ts).
 *
 * A cycle that fails is reported (`report`: the store's `'problem'`, a warning in the server's log)
 * and changes nothing: a failed WAL sync leaves the WAL to be synced again by the next cycle, and a
 * failed database sync keeps the guard's transaction open — the WAL cannot restart over frames the
 * database may not hold — until a later cycle's sync of the database succeeds.
 */
import fs from 'node:fs';
import os from 'node:os';
import SqliteDatabase from 'better-sqlite3';
import type { ProblemReport } from './hot/hot-state.js';

const LE = os.endianness() === 'LE';

const open = (file: string) =>
  new Promise<number | null>((resolve) => fs.open(file, 'r', (err, fd) => resolve(err ? null : fd)));
const fdatasync = (fd: number) =>
  new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
const closeFd = (fd: number | null) =>
  new Promise<void>((resolve) => (fd === null ? resolve() : fs.close(fd, () => resolve())));

export interface CheckpointResult {
  busy: number;
  /** frames in the WAL */
  log: number;
  /** frames of it copied into the database */
  checkpointed: number;
}

export interface WalCheckpointsOptions {
  /**
   * how often a cycle may start (0: no timer, the tests call `tick`). Each guarded copy writes the
   * pages changed since the last one, on the loop: with the copy still syncing, every 100 ms a turn's
   * p99 rose ~1 ms for a lower p99.9, and every 500 ms the syncs grew long enough to show again
   * (docs/architecture.md).
   */
  everyMs?: number;
  /** the WAL's length, in frames, at which a cycle ends with a full checkpoint */
  restartAt?: number;
  /** hears a cycle that failed (the store's `'problem'`): the cycle copied nothing past what it had synced */
  report?: ProblemReport;
  /** how a file is synced (`fs.fdatasync`; the tests make it fail) */
  sync?: (fd: number) => Promise<void>;
}

/** What a failed cycle is reported as (the server logs it as a warning, store/index.ts). */
export const CYCLE_FAILED = 'checkpointing the SQLite WAL';

/** The guard's connection and the read that begins its transaction. */
interface Guard {
  readonly db: SqliteDatabase.Database;
  readonly read: SqliteDatabase.Statement;
}

export class WalCheckpoints {
  private walFd: number | null = null;
  private shmFd: number | null = null;
  private dbFd: number | null = null;
  private readonly shm = Buffer.alloc(100);
  private guard: Guard | null = null;
  private busy: Promise<void> | null = null;
  /** the guard's transaction is kept open: a copy's sync of the database failed (see `cycle`) */
  private held = false;
  private last = '';
  private closed = false;
  private readonly timer: NodeJS.Timeout | null;
  private readonly restartAt: number;
  private readonly report: ProblemReport;
  private readonly sync: (fd: number) => Promise<void>;
  /** what the cycles did (read by the tests): WAL syncs, guarded copies, full checkpoints */
  readonly counts = { synced: 0, copied: 0, full: 0 };
  /** the last guarded copy's result and the frames the cycle had synced before it (read by the tests) */
  lastCopy: (CheckpointResult & { synced: number }) | null = null;

  /** `main` is the store's connection to the database `file` (in WAL mode). */
  constructor(
    private readonly main: SqliteDatabase.Database,
    private readonly file: string,
    opts: WalCheckpointsOptions = {},
  ) {
    this.restartAt = opts.restartAt ?? 4000;
    this.report = opts.report ?? (() => {});
    this.sync = opts.sync ?? fdatasync;
    const every = opts.everyMs ?? 250;
    this.timer = every > 0 ? setInterval(() => void this.tick(), every) : null;
    this.timer?.unref();
  }

  /** Runs a cycle if the WAL changed since the last one; one at a time. */
  tick(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.busy ??= this.cycle().finally(() => {
      this.busy = null;
    });
    return this.busy;
  }

  private async cycle(): Promise<void> {
    try {
      // the files appear with the first write; each is opened once it exists, read-only (fsync
      // needs no write access on Linux)
      this.walFd ??= await open(`${this.file}-wal`);
      this.shmFd ??= await open(`${this.file}-shm`);
      this.dbFd ??= await open(this.file);
      if (this.walFd === null || this.shmFd === null || this.dbFd === null || this.closed) return;
      if (this.held) {
        // the frames the last copy wrote into the database are synced before the WAL may restart
        await this.sync(this.dbFd);
        this.held = false;
        this.guard?.db.exec('COMMIT');
        this.counts.copied++;
      }
      const wal = this.walFd;
      const st = await new Promise<fs.Stats>((resolve, reject) =>
        fs.fstat(wal, (err, s) => (err ? reject(err) : resolve(s))),
      );
      const mark = `${st.size}:${st.mtimeMs}`;
      if (mark === this.last || this.closed) return;
      const guard = this.openGuard();
      const before = this.walIndex();
      guard.db.exec('BEGIN');
      try {
        guard.read.get();
        const at = this.walIndex();
        // the guard holds a read mark at most `at.frames` only when some frame was not copied yet
        // (else it reads the database alone and holds nothing back); unchanged since `before`, no
        // other connection wrote while it began
        const pinned = at.frames === before.frames && at.copied < at.frames;
        await this.sync(wal);
        this.last = mark;
        this.counts.synced++;
        if (!pinned) return;
        const r = this.copy();
        if (r === null) return;
        this.lastCopy = { ...r, synced: at.frames };
        if (r.checkpointed > at.copied) {
          // SQLite marks the frames copied before this sync: until it succeeds, the guard's read
          // keeps the WAL from restarting (the next cycle syncs again first)
          this.held = true;
          await this.sync(this.dbFd);
          this.held = false;
          this.counts.copied++;
        }
      } finally {
        if (!this.held) guard.db.exec('COMMIT');
      }
      if (!this.closed && this.walIndex().frames >= this.restartAt) {
        const r = this.checkpoint();
        if (r !== null && r.checkpointed === r.log) this.counts.full++;
      }
    } catch (err) {
      // a cycle that fails copies nothing past what it synced, and the next one starts over (its
      // WAL unmarked as synced); SQLite's own checkpoint still runs at its mark. A failed sync may
      // mean the disk lost writes: reported, so the log says so
      if (!this.closed) this.report(CYCLE_FAILED, err);
    }
  }

  /**
   * The WAL's length and how much of it is copied, from the wal-index's header and checkpoint
   * information (SQLite's file format: `mxFrame` at byte 16, `nBackfill` at byte 96, in the
   * machine's byte order).
   */
  private walIndex(): { frames: number; copied: number } {
    const b = this.shm;
    if (fs.readSync(this.shmFd as number, b, 0, b.length, 0) < b.length) return { frames: 0, copied: 0 };
    return LE
      ? { frames: b.readUInt32LE(16), copied: b.readUInt32LE(96) }
      : { frames: b.readUInt32BE(16), copied: b.readUInt32BE(96) };
  }

  /**
   * The guarded copy: `checkpoint` without its syncs (`synchronous = OFF` around it, the
   * connection's level put back after; SQLite refuses to change it inside a transaction). It copies
   * no frame past the guard's mark, all of them synced by the cycle already, and the WAL cannot
   * restart before the guard's transaction closes, after the database is synced.
   */
  private copy(): CheckpointResult | null {
    if (this.main.inTransaction || !this.main.open) return null;
    const level = Number(this.main.pragma('synchronous', { simple: true }));
    this.main.pragma('synchronous = OFF');
    try {
      return this.checkpoint();
    } finally {
      this.main.pragma(`synchronous = ${level}`);
    }
  }

  /** A PASSIVE checkpoint on the store's connection, or null when it has a transaction open. */
  private checkpoint(): CheckpointResult | null {
    if (this.main.inTransaction || !this.main.open) return null;
    return (this.main.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[])[0] ?? null;
  }

  private openGuard(): Guard {
    if (this.guard !== null) return this.guard;
    const db = new SqliteDatabase(this.file, { fileMustExist: true });
    // the guard runs on the event loop: it never waits for a lock (a busy moment skips a cycle)
    db.pragma('busy_timeout = 0');
    db.pragma('cache_size = -64');
    this.guard = { db, read: db.prepare('SELECT count(*) FROM sqlite_schema') };
    return this.guard;
  }

  /** Stops the timer and closes the guard and the files once a cycle under way has finished. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.busy;
    this.guard?.db.close();
    this.guard = null;
    const fds = [this.walFd, this.shmFd, this.dbFd];
    this.walFd = null;
    this.shmFd = null;
    this.dbFd = null;
    await Promise.all(fds.map(closeFd));
  }
}
