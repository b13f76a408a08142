/**
 * Cross-process change feed on PostgreSQL: each local change is sent with NOTIFY, and a
 * dedicated LISTEN connection turns other processes' notifications into local 'change' events.
 * The listener reconnects with backoff; a periodic version check heals any missed notification.
 */

import pg from 'pg';
import type { Logger } from 'pino';
import type { Store } from './store.js';

const CHANNEL = 'mockyard_changes';

export interface ChangeFeedOptions {
  databaseUrl: string;
  /** compiled snapshots and their versions, to check against the database */
  cachedVersions: () => Map<string, number>;
  invalidate: (projectId: string) => void;
  log: Logger;
  checkEveryMs?: number;
}

export class ChangeFeed {
  private client: pg.Client | null = null;
  private closed = false;
  private backoff = 100;
  private timer: NodeJS.Timeout | null = null;
  private readonly origin = `${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private readonly onLocal = (projectId: string) => {
    this.store.pgPool
      ?.query('SELECT pg_notify($1, $2)', [CHANNEL, `${this.origin}|${projectId}`])
      .catch((err) => this.opts.log.debug({ err }, 'notify failed'));
  };

  constructor(
    private readonly store: Store,
    private readonly opts: ChangeFeedOptions,
  ) {}

  async start(): Promise<void> {
    this.store.on('change', this.onLocal);
    await this.connect();
    this.timer = setInterval(() => void this.check(), this.opts.checkEveryMs ?? 1000);
    this.timer.unref();
  }

  /**
   * Opens the LISTEN connection. At most one attempt or connection exists at a time (`client`
   * holds it from the start of the attempt), so a failure reported twice ('error' then 'end', or
   * a rejected connect and an 'end') schedules one retry, never two listeners.
   */
  private async connect(): Promise<void> {
    if (this.closed || this.client) return;
    const client = new pg.Client({
      connectionString: this.opts.databaseUrl,
      connectionTimeoutMillis: 5000,
      keepAlive: true,
    });
    this.client = client;
    let failed = false;
    const fail = (err?: unknown) => {
      if (failed) return;
      failed = true;
      if (err) this.opts.log.debug({ err }, 'change feed connection lost');
      client.removeAllListeners();
      client.on('error', () => {});
      client.end().catch(() => {});
      if (this.client === client) this.client = null;
      this.reconnectLater();
    };
    client.on('error', fail);
    client.on('end', () => fail());
    client.on('notification', (n) => {
      const [origin, projectId] = (n.payload ?? '').split('|');
      if (origin !== this.origin && projectId) this.opts.invalidate(projectId);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      fail(err);
      return;
    }
    if (failed) return;
    if (this.closed) {
      fail();
      return;
    }
    this.backoff = 100;
    // anything may have changed while we were not listening
    for (const id of this.opts.cachedVersions().keys()) this.opts.invalidate(id);
  }

  private retry: NodeJS.Timeout | null = null;
  private reconnectLater(): void {
    if (this.closed || this.retry) return;
    const wait = this.backoff;
    this.backoff = Math.min(this.backoff * 2, 5000);
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, wait);
    this.retry.unref();
  }

  private checking = false;
  private async check(): Promise<void> {
    if (this.checking) return;
    const cached = this.opts.cachedVersions();
    if (cached.size === 0) return;
    this.checking = true;
    try {
      const ids = [...cached.keys()];
      for (let i = 0; i < ids.length; i += 500) {
        const now = await this.store.projectVersions(ids.slice(i, i + 500));
        for (const id of ids.slice(i, i + 500)) {
          if (now.get(id) !== cached.get(id)) this.opts.invalidate(id);
        }
      }
    } catch (err) {
      this.opts.log.debug({ err }, 'version check failed');
    } finally {
      this.checking = false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.store.off('change', this.onLocal);
    if (this.timer) clearInterval(this.timer);
    if (this.retry) clearTimeout(this.retry);
    const c = this.client;
    this.client = null;
    if (c) {
      c.removeAllListeners();
      c.on('error', () => {});
      await c.end().catch(() => {});
    }
  }
}
