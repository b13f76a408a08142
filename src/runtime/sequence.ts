/**
 * Response sequencing (docs/api.md "Rules") as a pure function of a hit counter (docs/architecture.md). The store keeps one atomically incremented `hits` per rule; the step for the n-th
 * hit and the `{step, served}` state shown by the API both follow from the step counts and the mode.
 */
import type { SequenceMode, SequenceState } from '../domain/model.js';

export interface Sequence {
  /** Index of the step served for the n-th hit (n from 0). */
  stepFor(hit: number): number;
  /** State after `hits` hits: the step the next request gets and how often it was already served in this pass. */
  stateAt(hits: number): SequenceState;
}

/**
 * @param counts each step's count (integers ≥ 1, at least one step)
 * @throws RangeError when `counts` is empty or holds a count that is not a positive safe integer
 */
export function compileSequence(counts: readonly number[], mode: SequenceMode): Sequence {
  if (counts.length === 0) throw new RangeError('a sequence needs at least one step');
  // starts[i] = hits before step i in one pass; starts[length] = total
  const starts = new Array<number>(counts.length + 1);
  starts[0] = 0;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i];
    if (!Number.isSafeInteger(c) || c < 1) throw new RangeError(`step ${i}: count must be a positive integer`);
    starts[i + 1] = starts[i] + c;
  }
  const last = counts.length - 1;
  const total = starts[counts.length];
  const loop = mode === 'loop';

  /** The step whose range [starts[i], starts[i+1]) holds r, for 0 ≤ r < total. */
  const locate = (r: number): number => {
    let lo = 0;
    let hi = last;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid] <= r) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  /** Position within the pattern: hits wrap for loop; hold_last stays on the last step past the end. */
  const position = (hits: number): number => {
    const n = hits > 0 ? Math.floor(hits) : 0; // negative, NaN or fractional input: treat as a count
    return loop ? n % total : n;
  };

  return {
    stepFor(hit: number): number {
      const r = position(hit);
      return r >= starts[last] ? last : locate(r);
    },
    stateAt(hits: number): SequenceState {
      const r = position(hits);
      const step = r >= starts[last] ? last : locate(r);
      return { step, served: r - starts[step] };
    },
  };
}
