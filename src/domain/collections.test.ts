/** keepGeneratedIds: a seed read again keeps the ids generated for its unchanged items without one. */
import { describe, expect, it } from 'vitest';
import { checkSeed, keepGeneratedIds } from './collections.js';

describe('keepGeneratedIds', () => {
  const first = checkSeed([{ v: 'a' }, { v: 'b' }, { v: 'b' }, { id: 7, v: 'c' }], 'id');

  it('gives unchanged items their earlier ids, wherever they moved, and equal items one each', () => {
    const again = keepGeneratedIds([{ v: 'b' }, { id: 7, v: 'c' }, { v: 'a' }, { v: 'b' }], first, 'id');
    expect(again).toEqual([first[1], first[3], first[0], first[2]]);
    expect(checkSeed(again, 'id')).toEqual(again);
  });

  it('leaves changed and new items without an id, and never reuses an id the seed names', () => {
    const named = first[0].id as string;
    const again = keepGeneratedIds([{ v: 'a' }, { v: 'b', w: 1 }, { id: named, v: 'x' }], first, 'id');
    expect(again).toEqual([{ v: 'a' }, { v: 'b', w: 1 }, { id: named, v: 'x' }]);
    // items of an earlier explicit id count as well: equal but for the id, they keep it
    expect(keepGeneratedIds([{ v: 'c' }], first, 'id')).toEqual([{ v: 'c', id: 7 }]);
  });

  it('returns a seed whose items all have ids as it is', () => {
    const seed = [{ id: 1 }, { id: 2 }];
    expect(keepGeneratedIds(seed, first, 'id')).toBe(seed);
  });
});
