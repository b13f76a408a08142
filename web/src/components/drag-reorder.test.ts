import { describe, expect, it } from 'vitest';
import { dropIndex, moved } from './drag-reorder';

describe('drag reorder', () => {
  it('places an item dropped above or below a target where the line showed', () => {
    const list = ['a', 'b', 'c', 'd'];
    // c dropped above a → first; a dropped below c → after c
    expect(moved(list, 2, dropIndex(2, 0, false))).toEqual(['c', 'a', 'b', 'd']);
    expect(moved(list, 0, dropIndex(0, 2, true))).toEqual(['b', 'c', 'a', 'd']);
    // a dropped above c → just before c; d dropped below a → second
    expect(moved(list, 0, dropIndex(0, 2, false))).toEqual(['b', 'a', 'c', 'd']);
    expect(moved(list, 3, dropIndex(3, 0, true))).toEqual(['a', 'd', 'b', 'c']);
  });

  it('leaves the list as it was when dropped on itself or its own edges', () => {
    expect(dropIndex(1, 1, false)).toBe(1);
    expect(dropIndex(1, 1, true)).toBe(1);
    expect(dropIndex(1, 0, true)).toBe(1);
    expect(dropIndex(1, 2, false)).toBe(1);
  });
});
