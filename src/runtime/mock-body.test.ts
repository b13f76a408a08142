import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { isoAt, isoOfMs } from './mock-body.js';

describe('isoAt: a log time from the monotonic clock', () => {
  it('names the wall-clock time of the instant it is given', () => {
    const before = Date.now();
    const at = Date.parse(isoAt(performance.now()));
    const after = Date.now();
    expect(at).toBeGreaterThanOrEqual(before - 1);
    expect(at).toBeLessThanOrEqual(after + 1);
  });

  it('moves with the instant, not with when it is asked', () => {
    const now = performance.now();
    const t0 = Date.parse(isoAt(now));
    expect(Date.parse(isoAt(now + 250)) - t0).toBeGreaterThanOrEqual(249);
    expect(Date.parse(isoAt(now + 250)) - t0).toBeLessThanOrEqual(251);
    // an instant over a second on takes the wall clock again, and still names its own time
    const later = Date.parse(isoAt(now + 5000));
    expect(later - t0).toBeGreaterThanOrEqual(4980);
    expect(later - t0).toBeLessThanOrEqual(5020);
    expect(Math.abs(later - (Date.now() + 5000 - (performance.now() - now)))).toBeLessThan(20);
  });
});

describe('isoOfMs: toISOString with the second formatted once', () => {
  it('spells every instant as toISOString does, across seconds, days, leap days and years', () => {
    const starts = [
      Date.UTC(2026, 10, 25, 1, 11, 28, 394),
      Date.UTC(2024, 1, 28, 23, 59, 59, 990), // into a leap day
      Date.UTC(2025, 11, 31, 23, 59, 59, 995), // into a new year
      0,
      -1500, // before 1970: the millisecond part counts up from the second before
      Date.UTC(9999, 11, 31, 23, 59, 59, 998), // into an extended year (+010000)
    ];
    for (const start of starts) {
      for (let ms = start; ms < start + 2100; ms += 7) expect(isoOfMs(ms)).toBe(new Date(ms).toISOString());
    }
    // going back in time (a clock stepped back) starts a new second too
    expect(isoOfMs(starts[0])).toBe(new Date(starts[0]).toISOString());
    for (let i = 0; i < 200; i++) {
      const ms = Math.floor(Math.random() * 4e12) - 1e12;
      expect(isoOfMs(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
