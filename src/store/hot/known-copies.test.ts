/**
 * KnownCopies (known-copies.ts): copies by project, collection and session, at most `max` of them.
 */
import { describe, expect, it } from 'vitest';
import { KnownCopies } from './known-copies.js';

describe('KnownCopies', () => {
  it('keeps each project, collection and session apart, NULs in their names included', () => {
    const k = new KnownCopies<number>(10);
    k.set('p', 'a\u0000b', 's', 1);
    k.set('p', 'a', 'b\u0000s', 2);
    k.set('p\u0000a', 'b', 's', 3);
    k.set('p', 'a', 's', 4);
    expect([k.get('p', 'a\u0000b', 's'), k.get('p', 'a', 'b\u0000s'), k.get('p\u0000a', 'b', 's')]).toEqual([1, 2, 3]);
    expect(k.get('p', 'a', 's')).toBe(4);
    expect(k.get('p', 'a', '')).toBeUndefined();
    expect(k.get('q', 'a', 's')).toBeUndefined();
    expect(k.size).toBe(4);
    k.set('p', 'a', 's', 5);
    expect(k.get('p', 'a', 's')).toBe(5);
    expect(k.size).toBe(4);
  });

  it('drops the oldest of the first collection known past its bound, and no more', () => {
    const k = new KnownCopies<string>(3);
    k.set('p', 'c', 's1', 'one');
    k.set('p', 'd', 's1', 'two');
    k.set('q', 'c', 's1', 'three');
    // setting a known copy again drops nothing
    k.set('p', 'c', 's1', 'one again');
    expect(k.size).toBe(3);
    k.set('q', 'c', 's2', 'four');
    expect(k.size).toBe(3);
    expect(k.get('p', 'c', 's1')).toBeUndefined();
    expect([k.get('p', 'd', 's1'), k.get('q', 'c', 's1'), k.get('q', 'c', 's2')]).toEqual(['two', 'three', 'four']);
    // p's last collection goes next, then project p is gone and q's oldest session goes
    k.set('r', 'c', 's1', 'five');
    expect(k.get('p', 'd', 's1')).toBeUndefined();
    k.set('r', 'c', 's2', 'six');
    expect(k.get('q', 'c', 's1')).toBeUndefined();
    expect([k.get('q', 'c', 's2'), k.get('r', 'c', 's1'), k.get('r', 'c', 's2')]).toEqual(['four', 'five', 'six']);
    expect(k.size).toBe(3);
  });

  it('forgets everything when cleared', () => {
    const k = new KnownCopies<number>(5);
    for (let i = 0; i < 5; i++) k.set('p', 'c', `s${i}`, i);
    k.clear();
    expect(k.size).toBe(0);
    expect(k.get('p', 'c', 's0')).toBeUndefined();
    for (let i = 0; i < 5; i++) k.set('p', 'c', `t${i}`, i);
    expect(k.size).toBe(5);
    expect(k.get('p', 'c', 't4')).toBe(4);
  });
});
