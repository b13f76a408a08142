/**
 * The ring's own buffers come from slabs past malloc's mmap threshold (128 KiB), so their memory
 * goes back to the system with the ring; places never share bytes.
 */
import { describe, expect, it } from 'vitest';
import { fitted, SLAB, Slabs } from './request-log-bytes.js';

describe('Slabs', () => {
  it('cuts buffers side by side from one slab past the mmap threshold, without overlap', () => {
    const slabs = new Slabs();
    const a = slabs.take(3072);
    const b = slabs.take(4096);
    expect(a.buffer).toBe(b.buffer);
    expect(a.buffer.byteLength).toBe(SLAB);
    expect(SLAB).toBeGreaterThan(128 * 1024);
    a.fill(1);
    b.fill(2);
    expect([a.length, b.length, a.every((x) => x === 1), b.every((x) => x === 2)]).toEqual([3072, 4096, true, true]);
  });

  it('starts a new slab when one is full, and gives a big text a buffer of its own', () => {
    const slabs = new Slabs();
    const first = slabs.take(SLAB / 4);
    for (let i = 1; i < 4; i++) expect(slabs.take(SLAB / 4).buffer).toBe(first.buffer);
    const next = slabs.take(1024);
    expect(next.buffer).not.toBe(first.buffer);
    const big = slabs.take(SLAB / 4 + 1);
    expect([big.buffer === next.buffer, big.length]).toEqual([false, SLAB / 4 + 1]);
  });

  it('keeps a place’s buffer while it fits and is not far too big, else cuts a new one', () => {
    const slabs = new Slabs();
    const b = fitted(null, 3000, slabs);
    expect(b.length).toBe(3072);
    expect(fitted(b, 2900, slabs)).toBe(b);
    expect(fitted(b, 768, slabs)).toBe(b);
    expect(fitted(b, 767, slabs)).not.toBe(b);
    expect(fitted(b, 5000, slabs).length).toBe(5120);
  });
});
