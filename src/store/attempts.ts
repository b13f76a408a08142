/**
 * Attempt counters shared by every process of a PostgreSQL deployment (login and register rate
 * limits, src/api/rate-limit.ts): one fixed window per key, counted in one statement, so N processes
 * behind a load balancer limit together what one process would. Expired windows are deleted by a
 * sweep the API runs every minute.
 */
import { sql } from 'kysely';
import type { StoreCore } from './core.js';

export class Attempts {
  constructor(private readonly core: StoreCore) {}

  /** Counts one attempt for `key` in its window (a new window when the last one ended); the count. */
  async take(key: string, windowMs: number, now = Date.now()): Promise<number> {
    const r = await sql<{ n: number | string }>`
      INSERT INTO attempts (key, reset_at, n) VALUES (${key}, ${now + windowMs}, 1)
      ON CONFLICT (key) DO UPDATE SET
        n = CASE WHEN attempts.reset_at <= ${now} THEN 1 ELSE attempts.n + 1 END,
        reset_at = CASE WHEN attempts.reset_at <= ${now} THEN ${now + windowMs} ELSE attempts.reset_at END
      RETURNING n`.execute(this.core.db);
    return Number(r.rows[0]?.n ?? 0);
  }

  /** Deletes the windows that have ended. */
  async sweep(now = Date.now()): Promise<void> {
    await this.core.db.deleteFrom('attempts').where('reset_at', '<=', now).execute();
  }
}
