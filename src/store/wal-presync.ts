/**
 * SQLite in WAL mode with `synchronous = NORMAL` does not sync on commit, but every checkpoint
 * (each 1000 pages of WAL, run by the commit that crosses the mark) first fsyncs the WAL, on the
 * thread that committed: our event loop. Measured with better-sqlite3 on this project's VM, 200,000
 * small upserts: checkpoint commits took p99.9 7.5 ms, up to 22 ms, nearly all of it that fsync (with
 * `synchronous = OFF` the same checkpoints took at most 1.9 ms) — a durable sequence under load (S4)
 * showed it in its p99.
 *
 * So the WAL is synced ahead of the checkpoint from libuv's thread pool: every `everyMs`, when the
 * file changed since the last sync (its size or modification time), one `fdatasync` runs off the
 * event loop, and the checkpoint's own fsync then finds little left to write (the same 200,000
 * upserts: p99.9 1.2 ms, at most 2.9 ms). This only adds syncs: what SQLite syncs, and when, is
 * unchanged, so durability is exactly as before.
 */
import fs from 'node:fs';

export class WalPresync {
  private fd: number | null = null;
  private busy: Promise<void> | null = null;
  private last = '';
  private closed = false;
  private readonly timer: NodeJS.Timeout | null;
  /** syncs done (read by the tests) */
  synced = 0;

  /** `file` is the WAL (`<database>-wal`); `everyMs` 0 runs no timer (the tests call `tick`). */
  constructor(
    private readonly file: string,
    everyMs = 100,
  ) {
    this.timer = everyMs > 0 ? setInterval(() => void this.tick(), everyMs) : null;
    this.timer?.unref();
  }

  /** Syncs the WAL if it changed since the last sync; one at a time. */
  tick(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.busy ??= this.step().finally(() => {
      this.busy = null;
    });
    return this.busy;
  }

  private async step(): Promise<void> {
    try {
      // the WAL appears with the first write; it is opened once it exists, read-only (fsync
      // needs no write access on Linux)
      this.fd ??= await new Promise<number | null>((resolve) =>
        fs.open(this.file, 'r', (err, fd) => resolve(err ? null : fd)),
      );
      if (this.fd === null) return;
      const fd = this.fd;
      const st = await new Promise<fs.Stats>((resolve, reject) =>
        fs.fstat(fd, (err, s) => (err ? reject(err) : resolve(s))),
      );
      const mark = `${st.size}:${st.mtimeMs}`;
      if (mark === this.last) return;
      await new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
      this.last = mark;
      this.synced++;
    } catch {
      /* a failed extra sync changes nothing: the checkpoint syncs for itself */
    }
  }

  /** Stops the timer and closes the file once a sync under way has finished. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.busy;
    if (this.fd !== null) {
      const fd = this.fd;
      this.fd = null;
      await new Promise<void>((resolve) => fs.close(fd, () => resolve()));
    }
  }
}
