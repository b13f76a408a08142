import { describe, expect, it } from 'vitest';
import { uuid7 } from './uuid7.js';

const FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuid7', () => {
  it('is a version-7 UUID whose first 48 bits are the time in ms', () => {
    const at = Date.UTC(2026, 10, 26, 12, 0, 0, 123);
    const id = uuid7(at + 10_000_000); // later than any id made so far in this file
    expect(id).toMatch(FORM);
    expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at + 10_000_000);
  });

  it('sorts in the order made: within a millisecond, past 4096 in one, and when the clock steps back', () => {
    const base = Date.now() + 20_000_000;
    const ids: string[] = [];
    for (let i = 0; i < 5000; i++) ids.push(uuid7(base)); // one millisecond, past the 12-bit counter
    ids.push(uuid7(base - 60_000)); // the clock stepped back a minute
    ids.push(uuid7(base + 5));
    for (const id of ids) expect(id).toMatch(FORM);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // the 4097th id of the millisecond borrowed the next one
    expect(ids[4096].slice(0, 13)).not.toBe(ids[4095].slice(0, 13));
  });

  it('takes 62 fresh random bits an id, past each refill of its entropy', () => {
    const ids = Array.from({ length: 2000 }, () => uuid7());
    // 48 of those bits are the last 12 characters: 2,000 ids (~4 refills) repeat none
    expect(new Set(ids.map((id) => id.slice(24))).size).toBe(ids.length);
    // the variant's character carries two of them
    expect(new Set(ids.map((id) => id[19])).size).toBe(4);
  });
});
