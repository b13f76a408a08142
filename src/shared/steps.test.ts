import { describe, expect, it } from 'vitest';
import { type Deferred, drive, driveInto, LATER, type StepSink, type Steps } from './steps.js';

function* add(a: unknown, b: unknown): Steps<number> {
  const x = (yield a) as number;
  const y = (yield b) as number;
  return x + y;
}

/** catches the rejection of what it yields */
function* guarded(): Steps<string> {
  try {
    yield Promise.reject(new Error('boom'));
    return 'no';
  } catch (e) {
    return `caught ${(e as Error).message}`;
  }
}

/** throws after its one wait */
function* bad(first: unknown): Steps<void> {
  yield first;
  throw new Error('late');
}

describe('drive', () => {
  it('stays synchronous while every yielded value is plain', () => {
    expect(drive(add(1, 2))).toBe(3);
  });

  it('switches to a promise at the first promise, and resolves later plain values too', async () => {
    const r = drive(add(Promise.resolve(1), 2));
    expect(r).toBeInstanceOf(Promise);
    expect(await r).toBe(3);
    expect(await drive(add(1, Promise.resolve(5)))).toBe(6);
  });

  it('throws a rejection into the generator, where try/catch sees it', async () => {
    expect(await drive(guarded())).toBe('caught boom');
  });

  it('an uncaught error is thrown synchronously before any promise, and rejects after one', async () => {
    expect(() => drive(bad(1))).toThrow('late');
    await expect(drive(bad(Promise.resolve(1)))).rejects.toThrow('late');
  });

  it('composes with yield*', async () => {
    function* outer(v: unknown): Steps<number> {
      const a = yield* add(v, 1);
      return a * 10;
    }
    expect(drive(outer(2))).toBe(30);
    expect(await drive(outer(Promise.resolve(2)))).toBe(30);
  });
});

describe('driveInto', () => {
  /** a sink that records what it hears, and a promise of its first word */
  function sink<T>() {
    const heard: string[] = [];
    let done!: () => void;
    const settled = new Promise<void>((r) => {
      done = r;
    });
    return {
      heard,
      settled,
      resolve: (v: T) => {
        heard.push(`value ${String(v)}`);
        done();
      },
      reject: (e: unknown) => {
        heard.push(`error ${(e as Error).message}`);
        done();
      },
    };
  }

  it('returns the result at once while every yielded value is plain, and the sink hears nothing', () => {
    const s = sink<number>();
    expect(driveInto(add(1, 2), s)).toBe(3);
    expect(s.heard).toEqual([]);
  });

  it('returns LATER at the first promise; the sink hears the result once, after later plain values too', async () => {
    const s = sink<number>();
    expect(driveInto(add(Promise.resolve(1), 2), s)).toBe(LATER);
    await s.settled;
    const t = sink<number>();
    expect(driveInto(add(1, Promise.resolve(5)), t)).toBe(LATER);
    await t.settled;
    expect([s.heard, t.heard]).toEqual([['value 3'], ['value 6']]);
  });

  it('throws a rejection into the generator; an uncaught error throws before a wait and goes to the sink after', async () => {
    const g = sink<string>();
    driveInto(guarded(), g);
    await g.settled;
    expect(g.heard).toEqual(['value caught boom']);
    expect(() => driveInto(bad(1), sink<void>())).toThrow('late');
    const b = sink<void>();
    expect(driveInto(bad(Promise.resolve(1)), b)).toBe(LATER);
    await b.settled;
    expect(b.heard).toEqual(['error late']);
  });

  /** a Deferred settled by hand, as a group commit settles its waiters */
  function later<T>() {
    const sinks: StepSink<T>[] = [];
    const d: Deferred<T> = { into: (k) => void sinks.push(k) };
    return { d, sinks };
  }

  it('waits for a Deferred: its sink steps the generator on, a failure is thrown into it', async () => {
    const one = later<number>();
    const s = sink<number>();
    expect(driveInto(add(one.d, 2), s)).toBe(LATER);
    expect(one.sinks).toHaveLength(1);
    expect(s.heard).toEqual([]);
    one.sinks[0].resolve(40);
    expect(s.heard).toEqual(['value 42']);

    const two = later<number>();
    const g = sink<string>();
    function* catches(): Steps<string> {
      try {
        yield two.d;
        return 'no';
      } catch (e) {
        return `caught ${(e as Error).message}`;
      }
    }
    driveInto(catches(), g);
    two.sinks[0].reject(new Error('refused'));
    expect(g.heard).toEqual(['value caught refused']);

    // drive gives a promise of a Deferred's result, and a Deferred and a promise mix in one evaluation
    const three = later<number>();
    const p = drive(add(three.d, Promise.resolve(5)));
    three.sinks[0].resolve(1);
    await expect(p).resolves.toBe(6);
  });
});
