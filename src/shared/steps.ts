/**
 * Maybe-asynchronous code written once. A step function is a generator that `yield`s whatever it
 * needs resolved: `drive` hands plain values straight back and stays synchronous, and switches
 * to awaiting only at the first promise. So an evaluation whose reads are all in memory or in
 * SQLite (synchronous: conditions, a storage read, set_variable) is answered in the tick the
 * request arrived in — no promise, no microtask — while one that waits runs the same code
 * asynchronously. Writes wait: a hit counter or a storage write is committed with the rest of the
 * turn (group commit, store/hot/group-commit.ts), as is anything on PostgreSQL, a webhook or a delay.
 *
 * Measured (`node bench/step-functions.mjs`): the same evaluation awaited at every step, as a plain
 * `async` function would be, costs about 6 % more CPU in the engine, and every answer then takes
 * the promise path of the mock handler as well.
 *
 *   function* load(): Steps<number> { const n = (yield store.hot.hit(id, '')) as number; return n + 1; }
 */
export type Steps<T> = Generator<unknown, T, unknown>;

/**
 * A wait that hands its result straight to a sink (`into`), with no promise: a group commit's
 * waiter (hot/sqlite.ts `updateStorageInto`). Like a promise's reactions, the sink hears the result
 * later, never during `into` itself, and exactly once.
 */
export interface Deferred<T> {
  into(sink: StepSink<T>): void;
}

/** What a step waits for: a promise (or any thenable) or a `Deferred`. */
type Wait = PromiseLike<unknown> | Deferred<unknown>;

const isWait = (v: unknown): v is Wait =>
  v !== null &&
  typeof v === 'object' &&
  (typeof (v as PromiseLike<unknown>).then === 'function' || typeof (v as Deferred<unknown>).into === 'function');

/** Who hears the result of `driveInto` when it is not ready at once. */
export interface StepSink<T> {
  resolve(v: T): void;
  reject(e: unknown): void;
}

/** What `driveInto` returns when the result is not ready at once. */
export const LATER: unique symbol = Symbol('later');

/** Steps on from `r` while what it yields is plain: the end, or the first wait. */
function untilWait<T>(gen: Steps<T>, r: IteratorResult<unknown, T>): IteratorResult<unknown, T> {
  while (!r.done && !isWait(r.value)) r = gen.next(r.value);
  return r;
}

/** Runs `gen` to its end: its result, or a promise of it once anything it yielded was a promise. */
export function drive<T>(gen: Steps<T>): T | Promise<T> {
  const r = untilWait(gen, gen.next());
  if (r.done) return r.value;
  return new Promise<T>((resolve, reject) => waitFor(gen, r.value as Wait, { resolve, reject }));
}

/**
 * `drive` for a caller with a sink of its own: the result when the steps end without waiting, else
 * `LATER`, and `sink` hears the result (or the error) later — each wait is one `then` on what was
 * yielded, with no promise of the result (the engine's step path: one promise a request fewer than
 * `drive`, and no `then` on it). A step that throws before the first wait throws to the caller, as
 * with `drive`.
 */
export function driveInto<T>(gen: Steps<T>, sink: StepSink<T>): T | typeof LATER {
  const r = untilWait(gen, gen.next());
  if (r.done) return r.value;
  waitFor(gen, r.value as Wait, sink);
  return LATER;
}

/** Steps on from a `Deferred`'s result: one object a wait, where a promise's takes two closures and a promise. */
class Resume<T> implements StepSink<unknown> {
  constructor(
    private readonly gen: Steps<T>,
    private readonly sink: StepSink<T>,
  ) {}
  resolve(v: unknown): void {
    proceed(this.gen, false, v, this.sink);
  }
  reject(e: unknown): void {
    proceed(this.gen, true, e, this.sink);
  }
}

function waitFor<T>(gen: Steps<T>, pending: Wait, sink: StepSink<T>): void {
  if (typeof (pending as Deferred<unknown>).into === 'function') {
    (pending as Deferred<unknown>).into(new Resume(gen, sink));
    return;
  }
  (pending as PromiseLike<unknown>).then(
    (v) => proceed(gen, false, v, sink),
    (e) => proceed(gen, true, e, sink),
  );
}

/** Hands the generator what it waited for, and steps on to the end or the next wait. */
function proceed<T>(gen: Steps<T>, failed: boolean, got: unknown, sink: StepSink<T>): void {
  let r: IteratorResult<unknown, T>;
  try {
    r = untilWait(gen, failed ? gen.throw(got) : gen.next(got));
  } catch (e) {
    sink.reject(e);
    return;
  }
  if (r.done) sink.resolve(r.value);
  else waitFor(gen, r.value as Wait, sink);
}
