/**
 * Fixed-window attempt counters in memory, for login and register (per client address and per
 * email). Bounded: the table is swept when it grows past `maxKeys`.
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
      if (this.hits.size >= this.maxKeys) this.sweep(now);
      h = { n: 0, resetAt: now + this.windowMs };
      this.hits.set(key, h);
    }
    h.n++;
    return h.n <= this.limit;
  }

  private sweep(now: number): void {
    for (const [k, h] of this.hits) if (h.resetAt <= now) this.hits.delete(k);
    if (this.hits.size >= this.maxKeys) this.hits.clear();
  }
}
