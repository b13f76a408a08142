/**
 * The login limiter's counters: a full table never forgets live counters (filling it used to wipe
 * every counter, a victim's included), and expired ones make room.
 */
import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limit.js';

describe('RateLimiter', () => {
  it('counts per key within a window, then starts again', () => {
    const l = new RateLimiter(2, 60_000);
    expect([l.take('a', 0), l.take('a', 1), l.take('a', 2)]).toEqual([true, true, false]);
    expect(l.over('a', 3)).toBe(true);
    expect(l.take('a', 60_001)).toBe(true);
  });

  it('attack 11: filling the table with fresh keys does not reset a live counter; new keys are refused instead', () => {
    const l = new RateLimiter(3, 60_000, 100);
    for (let i = 0; i < 4; i++) l.take('email:victim', 0);
    expect(l.over('email:victim', 0)).toBe(true);
    for (let i = 0; i < 500; i++) l.take(`email:junk${i}`, 1);
    expect(l.size).toBeLessThanOrEqual(100);
    // the victim's counter is still over its limit
    expect(l.take('email:victim', 2)).toBe(false);
    expect(l.take('email:fresh', 2)).toBe(false);
    // once the window has passed the expired counters make room
    expect(l.take('email:fresh', 60_001)).toBe(true);
  });
});
