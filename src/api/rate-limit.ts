/**
 * Fixed-window attempt counters for login and register (per client address and per email): in
 * memory in a single process, in the database's `attempts` table when several processes share
 * PostgreSQL (`SharedRateLimiter`), so they limit together. In memory the table is bounded: past
 * `maxKeys` live counters the expired ones are swept, and when every counter is still live a new key is refused (counted as over its limit) rather than forgetting the others
 * — wiping the table would let whoever fills it reset a victim's counter.
 */
export class RateLimiter {
  private readonly hits = new Map<string, { n: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Counts one attempt for `key`; false when the key is over its limit in this window. */
  take(key: string, now = Date.now()): boolean {
    let h = this.hits.get(key);
    if (!h || h.resetAt <= now) {
      if (!h && this.hits.size >= this.maxKeys) {
        this.sweep(now);
        if (this.hits.size >= this.maxKeys) return false;
      }
      h = { n: 0, resetAt: now + this.windowMs };
      this.hits.set(key, h);
    }
    h.n++;
    return h.n <= this.limit;
  }

  /** Whether `key` is over its limit now, without counting an attempt. */
  over(key: string, now = Date.now()): boolean {
    const h = this.hits.get(key);
    return h !== undefined && h.resetAt > now && h.n >= this.limit;
  }

  /** Live counters (tests). */
  get size(): number {
    return this.hits.size;
  }

  private sweep(now: number): void {
    for (const [k, h] of this.hits) if (h.resetAt <= now) this.hits.delete(k);
  }
}

/** Counts attempts in the store, shared by every process (`store/attempts.ts`). */
export interface AttemptCounter {
  take(key: string, windowMs: number): Promise<number>;
}

export class SharedRateLimiter {
  constructor(
    private readonly counter: AttemptCounter,
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  async take(key: string): Promise<boolean> {
    return (await this.counter.take(key, this.windowMs)) <= this.limit;
  }
}
