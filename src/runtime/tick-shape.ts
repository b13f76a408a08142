/**
 * Keeps one of Node's `process.nextTick` objects alive for the life of the process, so that V8 never
 * forgets the shape (hidden class) those objects have.
 *
 * Why: after about a minute without traffic V8's memory reducer runs its memory-reducing full GCs,
 * which keep no unused hidden classes. The classes of the tick objects (a literal with two computed
 * symbol keys, made for every `nextTick`, several times a request in `node:http`) are then dropped,
 * and the optimized `nextTick` went on defining those properties through V8's runtime instead of its
 * inline cache — for good: a server that had been idle for a minute answered static mocks with
 * ~1.7 µs more CPU a request (about a third more JavaScript time) until it restarted. Measured, the
 * figures and the command in docs/architecture.md ("Decisions"). A tick object kept alive keeps its
 * hidden class, and with it the transitions every new tick object takes.
 *
 * How: an async hook sees the tick object of one `nextTick` and is disabled at once, so nothing else
 * runs through it (Node's hooks cost only while enabled).
 */
import { createHook } from 'node:async_hooks';

let kept: object | null = null;

/** Takes and keeps one tick object (once a process); returns it (for the tests). */
export function keepTickShape(): object | null {
  if (kept) return kept;
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'TickObject' && kept === null) kept = resource as object;
    },
  });
  hook.enable();
  try {
    process.nextTick(noop);
  } finally {
    hook.disable();
  }
  return kept;
}

function noop(): void {}
