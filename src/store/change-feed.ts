/**
 * Cross-process change feed on PostgreSQL: each local change is sent with NOTIFY, and a
 * dedicated LISTEN connection turns other processes' notifications into local 'change' events.
 * The listener reconnects with backoff; a version check twice a second heals any missed
 * notification, so a change reaches every process within 1 s even when its NOTIFY is lost.
 */

import type pg from 'pg';
import type { Logger } from 'pino';
import type { Store } from './index.js';

const CHANNEL = 'mockyard_changes';
/** pushes to WebSocket channels (docs/websocket.md), to the sockets of the other processes */
const SOCKETS = 'mockyard_sockets';
/** PostgreSQL's NOTIFY payload limit is 8000 bytes: a larger push reaches this process's sockets only */
export const MAX_PUSH_PAYLOAD = 7900;

export interface ChangeFeedOptions {
  databaseUrl: string;
  /** compiled snapshots and their versions, to check against the database */
  cachedVersions: () => Map<string, number>;
  invalidate: (projectId: string) => void;
  log: Logger;
  /** version check interval (default 500 ms: a missed notification heals well within 1 s) */
  checkEveryMs?: number;
  /** a push another process made to a WebSocket channel */
  onPush?: (payload: string) => void;
}

export class ChangeFeed {
  private client: pg.Client | null = null;
  private closed = false;
  private backoff = 100;
  private attempts = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly origin = `${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  /**
   * Sends a local change to the other processes. Through the LISTEN connection when it is up: it
   * is otherwise idle, so a notification never queues behind mock traffic waiting for the pool.
   * A notification lost on the way is caught by the version check.
   */
  private readonly onLocal = (projectId: string) => {
    const args = [CHANNEL, `${this.origin}|${projectId}`];
    const failed = (err: unknown) => this.opts.log.debug({ err }, 'notify failed');
    const client = this.listening;
    if (!client) {
      this.store.pgPool?.query('SELECT pg_notify($1, $2)', args).catch(failed);
      return;
    }
    // one statement at a time on the client (pg deprecates queueing queries on a busy client)
    this.notifying = this.notifying.then(() => client.query('SELECT pg_notify($1, $2)', args).then(() => {}, failed));
  };
  private notifying: Promise<void> = Promise.resolve();

  /** Sends a WebSocket push to the other processes; false when it is too large for NOTIFY. */
  push(payload: string): boolean {
    const text = `${this.origin}|${payload}`;
    if (Buffer.byteLength(text) > MAX_PUSH_PAYLOAD) return false;
    const failed = (err: unknown) => this.opts.log.debug({ err }, 'push notify failed');
    const client = this.listening;
    if (!client) {
      this.store.pgPool?.query('SELECT pg_notify($1, $2)', [SOCKETS, text]).catch(failed);
      return true;
    }
    this.notifying = this.notifying.then(() =>
      client.query('SELECT pg_notify($1, $2)', [SOCKETS, text]).then(() => {}, failed),
    );
    return true;
  }
  /** the LISTEN connection once it is established (null while connecting or reconnecting) */
  private listening: pg.Client | null = null;

  constructor(
    private readonly store: Store,
    private readonly opts: ChangeFeedOptions,
  ) {}

  async start(): Promise<void> {
    this.store.on('change', this.onLocal);
    await this.connect();
    this.timer = setInterval(() => void this.check(), this.opts.checkEveryMs ?? 500);
    this.timer.unref();
  }

  /**
   * Opens the LISTEN connection. At most one attempt or connection exists at a time (`client`
   * holds it from the start of the attempt), so a failure reported twice ('error' then 'end', or
   * a rejected connect and an 'end') schedules one retry, never two listeners.
   */
  private async connect(): Promise<void> {
    if (this.closed || this.client) return;
    const { default: pgLib } = await import('pg');
    if (this.closed || this.client) return;
    this.attempts++;
    const client = new pgLib.Client({
      connectionString: this.opts.databaseUrl,
      // tells this connection apart in pg_stat_activity
      application_name: 'mockyard-listener',
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
      if (this.listening === client) this.listening = null;
      this.reconnectLater();
    };
    client.on('error', fail);
    client.on('end', () => fail());
    client.on('notification', (n) => {
      const payload = n.payload ?? '';
      const bar = payload.indexOf('|');
      const origin = payload.slice(0, bar);
      if (origin === this.origin || bar < 0) return;
      if (n.channel === SOCKETS) this.opts.onPush?.(payload.slice(bar + 1));
      else if (payload.slice(bar + 1)) this.opts.invalidate(payload.slice(bar + 1));
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      await client.query(`LISTEN ${SOCKETS}`);
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
    this.listening = client;
    // anything may have changed while we were not listening
    for (const id of this.opts.cachedVersions().keys()) this.opts.invalidate(id);
  }

  /**
   * For /healthz: whether the LISTEN connection is up, how many connections were tried since the
   * start, and whether one is being tried or waits to be (an outage's retries can be watched).
   */
  status(): { listening: boolean; attempts: number; pending: boolean } {
    const pending = this.retry !== null || (this.client !== null && this.client !== this.listening);
    return { listening: this.listening !== null, attempts: this.attempts, pending };
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
        const now = await this.store.mockConfig.versions(ids.slice(i, i + 500));
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
    this.listening = null;
    if (c) {
      c.removeAllListeners();
      c.on('error', () => {});
      await c.end().catch(() => {});
    }
  }
}
