import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { isoAt } from './mock-body.js';

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
