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
 * 1. opens a read transaction on a connection of its own (the guard): it holds the WAL as it is
 *    now, so no checkpoint copies a frame past it, and the WAL cannot restart while it is open;
 * 2. fdatasyncs the WAL from libuv's thread pool — every frame the guard sees is then durable;
 * 3. checkpoints on the store's connection (PASSIVE, no waiting): SQLite syncs the WAL first (little
 *    is left to write), copies the frames up to the guard, and does not sync the database, since
 *    frames past the guard stay in the WAL;
 * 4. fdatasyncs the database from the thread pool, and closes the guard's transaction;
 * 5. once the WAL holds `restartAt` frames, checkpoints again without the guard: what it copies and
 *    what its two syncs write is only what came in during steps 2–4, and the next commit restarts
 *    the WAL.
 * Every checkpoint is SQLite's own under `synchronous = NORMAL`, with its own syncs, and the guard is
 * an ordinary reader: this only adds syncs and makes some checkpoints stop early, so what survives a
 * crash or a power loss is exactly what did before. The store's connection keeps SQLite's automatic
 * checkpoint at a multiple of `restartAt` as a backstop (store/index.ts).
 */
import fs from 'node:fs';
import SqliteDatabase from 'better-sqlite3';

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
   * pages changed since the last one, on the loop: every 100 ms a turn's p99 rose ~1 ms for the same
   * p99.9; every 500 ms the syncs grew long enough to show again (docs/architecture.md).
   */
  everyMs?: number;
  /** the WAL's length, in frames, at which a cycle ends with a full checkpoint */
  restartAt?: number;
}

export class WalCheckpoints {
  private walFd: number | null = null;
  private dbFd: number | null = null;
  private guard: SqliteDatabase.Database | null = null;
  private begin: SqliteDatabase.Statement | null = null;
  private busy: Promise<void> | null = null;
  private last = '';
  private closed = false;
  private readonly timer: NodeJS.Timeout | null;
  private readonly restartAt: number;
  /** what the cycles did (read by the tests): WAL syncs, guarded copies, full checkpoints */
  readonly counts = { synced: 0, copied: 0, full: 0 };
  /** the last guarded checkpoint's result (read by the tests) */
  lastCopy: CheckpointResult | null = null;

  /** `main` is the store's connection to the database `file` (in WAL mode). */
  constructor(
    private readonly main: SqliteDatabase.Database,
    private readonly file: string,
    opts: WalCheckpointsOptions = {},
  ) {
    this.restartAt = opts.restartAt ?? 4000;
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
      // the WAL appears with the first write; it is opened once it exists, read-only (fsync needs
      // no write access on Linux)
      this.walFd ??= await open(`${this.file}-wal`);
      if (this.walFd === null || this.closed) return;
      const fd = this.walFd;
      const st = await new Promise<fs.Stats>((resolve, reject) =>
        fs.fstat(fd, (err, s) => (err ? reject(err) : resolve(s))),
      );
      const mark = `${st.size}:${st.mtimeMs}`;
      if (mark === this.last || this.closed) return;
      const guard = this.openGuard();
      guard.exec('BEGIN');
      let log = 0;
      try {
        (this.begin as SqliteDatabase.Statement).get();
        await fdatasync(fd);
        this.last = mark;
        this.counts.synced++;
        const r = this.checkpoint();
        if (r === null) return;
        this.lastCopy = r;
        log = r.log;
        if (r.checkpointed > 0) {
          this.dbFd ??= await open(this.file);
          if (this.dbFd !== null) await fdatasync(this.dbFd);
          this.counts.copied++;
        }
      } finally {
        guard.exec('COMMIT');
      }
      if (log >= this.restartAt && !this.closed) {
        const r = this.checkpoint();
        if (r !== null && r.checkpointed === r.log) this.counts.full++;
      }
    } catch {
      /* a cycle that fails changes nothing: SQLite's own checkpoint still runs at its mark */
    }
  }

  /** A PASSIVE checkpoint on the store's connection, or null when it has a transaction open. */
  private checkpoint(): CheckpointResult | null {
    if (this.main.inTransaction || !this.main.open) return null;
    return (this.main.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[])[0] ?? null;
  }

  private openGuard(): SqliteDatabase.Database {
    if (this.guard !== null) return this.guard;
    const g = new SqliteDatabase(this.file, { fileMustExist: true });
    // the guard runs on the event loop: it never waits for a lock (a busy moment skips a cycle)
    g.pragma('busy_timeout = 0');
    g.pragma('cache_size = -64');
    this.begin = g.prepare('SELECT count(*) FROM sqlite_schema');
    this.guard = g;
    return g;
  }

  /** Stops the timer and closes the guard and the files once a cycle under way has finished. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.busy;
    this.guard?.close();
    this.guard = null;
    const fds = [this.walFd, this.dbFd];
    this.walFd = null;
    this.dbFd = null;
    await Promise.all(fds.map(closeFd));
  }
}
