import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SequenceMode, SequenceState } from '../domain/model.js';
import { compileSequence } from './sequence.js';

const served = (statuses: number[], counts: number[], mode: SequenceMode, n: number) => {
  const seq = compileSequence(counts, mode);
  return Array.from({ length: n }, (_, i) => statuses[seq.stepFor(i)]);
};

describe('the sequence examples of docs/api.md "Rules"', () => {
  it('201 then 200, each count 1, hold_last: 201 once, then 200 always', () => {
    expect(served([201, 200], [1, 1], 'hold_last', 6)).toEqual([201, 200, 200, 200, 200, 200]);
  });
  it('500 (count 2) then 200 (count 1), loop: 500, 500, 200, and repeat', () => {
    expect(served([500, 200], [2, 1], 'loop', 7)).toEqual([500, 500, 200, 500, 500, 200, 500]);
  });
});

describe('stateAt', () => {
  it('counts [2,1] loop', () => {
    const seq = compileSequence([2, 1], 'loop');
    expect([0, 1, 2, 3, 4, 5].map((h) => seq.stateAt(h))).toEqual([
      { step: 0, served: 0 },
      { step: 0, served: 1 },
      { step: 1, served: 0 },
      { step: 0, served: 0 },
      { step: 0, served: 1 },
      { step: 1, served: 0 },
    ]);
  });
  it('counts [1,2] hold_last keeps counting on the last step', () => {
    const seq = compileSequence([1, 2], 'hold_last');
    expect([0, 1, 2, 3, 10].map((h) => seq.stateAt(h))).toEqual([
      { step: 0, served: 0 },
      { step: 1, served: 0 },
      { step: 1, served: 1 },
      { step: 1, served: 2 },
      { step: 1, served: 9 },
    ]);
  });
  it('a single step', () => {
    for (const mode of ['loop', 'hold_last'] as const) {
      const seq = compileSequence([3], mode);
      expect(seq.stepFor(100)).toBe(0);
    }
    expect(compileSequence([3], 'loop').stateAt(4)).toEqual({ step: 0, served: 1 });
    expect(compileSequence([3], 'hold_last').stateAt(4)).toEqual({ step: 0, served: 4 });
  });
  it('treats negative, NaN and fractional hit counts as counts', () => {
    const seq = compileSequence([2, 1], 'loop');
    expect(seq.stateAt(-1)).toEqual({ step: 0, served: 0 });
    expect(seq.stateAt(Number.NaN)).toEqual({ step: 0, served: 0 });
    expect(seq.stepFor(2.7)).toBe(1);
  });
  it('handles counters far beyond one pass', () => {
    const seq = compileSequence([2, 1], 'loop');
    expect(seq.stepFor(3 * 1e12 + 2)).toBe(1);
    expect(compileSequence([2, 1], 'hold_last').stateAt(1e12)).toEqual({ step: 1, served: 1e12 - 2 });
  });
});

describe('compileSequence: invalid counts', () => {
  it.each([[[]], [[0]], [[1, -1]], [[1.5]], [[Number.NaN]]])('%j throws RangeError', (counts) => {
    expect(() => compileSequence(counts, 'loop')).toThrow(RangeError);
  });
});

/**
 * The sequence table of docs/api.md "Rules", literally: a state {step, served} where served counts returns of the current step. A request
 * on a step returned fewer than Count times returns it; one returned Count times advances (to i+1, or to 0 in
 * Loop) and returns the new step; Hold Last on the last step returns it indefinitely.
 */
function simulate(counts: readonly number[], mode: SequenceMode, hits: number) {
  const last = counts.length - 1;
  let state = { step: 0, served: 0 };
  const steps: number[] = [];
  /** The table's state as the step the next request gets (a step returned Count times is already left). */
  const states: SequenceState[] = [];
  const normalize = (s: SequenceState): SequenceState => {
    if (s.served < counts[s.step]) return { ...s };
    if (s.step < last) return { step: s.step + 1, served: 0 };
    return mode === 'loop' ? { step: 0, served: 0 } : { ...s };
  };
  for (let h = 0; h < hits; h++) {
    states.push(normalize(state));
    if (state.served >= counts[state.step]) {
      if (state.step < last) state = { step: state.step + 1, served: 0 };
      else if (mode === 'loop') state = { step: 0, served: 0 };
      // hold_last on the last step: stay
    }
    steps.push(state.step);
    state = { step: state.step, served: state.served + 1 };
  }
  states.push(normalize(state));
  return { steps, states };
}

describe('property: matches the sequence state machine', () => {
  it('stepFor and stateAt agree with a step-by-step simulation for 0..60 hits', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 5 }),
        fc.constantFrom<SequenceMode>('loop', 'hold_last'),
        (counts, mode) => {
          const seq = compileSequence(counts, mode);
          const { steps, states } = simulate(counts, mode, 61);
          for (let h = 0; h <= 60; h++) {
            expect(seq.stepFor(h)).toBe(steps[h]);
            expect(seq.stateAt(h)).toEqual(states[h]);
            // the step the state names is the one the next hit is served
            expect(seq.stateAt(h).step).toBe(seq.stepFor(h));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
