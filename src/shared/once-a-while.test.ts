import { describe, expect, it } from 'vitest';
import { onceAWhile } from './once-a-while.js';

describe('onceAWhile', () => {
  it('writes each kind at most once a period, with how many it left out since', () => {
    let t = 1_000;
    const written: [string, string, number][] = [];
    const warn = onceAWhile(
      (kind, err, leftOut) => written.push([kind, String(err), leftOut]),
      60_000,
      () => t,
    );
    warn('merge', 'e1');
    warn('merge', 'e2');
    warn('checkpoint', 'c1');
    t += 59_999;
    warn('merge', 'e3');
    expect(written).toEqual([
      ['merge', 'e1', 0],
      ['checkpoint', 'c1', 0],
    ]);
    t += 1;
    warn('merge', 'e4');
    warn('merge', 'e5');
    expect(written.slice(2)).toEqual([['merge', 'e4', 2]]);
  });
});
