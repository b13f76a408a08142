import { describe, expect, it } from 'vitest';
import { drive, type Steps } from './steps.js';

function* add(a: unknown, b: unknown): Steps<number> {
  const x = (yield a) as number;
  const y = (yield b) as number;
  return x + y;
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
    function* guarded(): Steps<string> {
      try {
        yield Promise.reject(new Error('boom'));
        return 'no';
      } catch (e) {
        return `caught ${(e as Error).message}`;
      }
    }
    expect(await drive(guarded())).toBe('caught boom');
  });

  it('an uncaught error is thrown synchronously before any promise, and rejects after one', async () => {
    function* bad(first: unknown): Steps<void> {
      yield first;
      throw new Error('late');
    }
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
