/**
 * Keeps one object of a few of Node's classes alive for the life of the process, so that V8 never
 * forgets the shapes (hidden classes) those objects have. Both cases below made a server that had
 * been idle answer slower until it restarted; the figures and commands are in docs/architecture.md
 * ("Decisions").
 *
 * Why, tick objects: after about a minute without traffic V8's memory reducer runs its
 * memory-reducing full GCs, which keep no unused hidden classes. The classes of the tick objects (a
 * literal with two computed symbol keys, made for every `nextTick`, several times a request in
 * `node:http`) are then dropped, and the optimized `nextTick` went on defining those properties
 * through V8's runtime instead of its inline cache: ~1.7 µs more CPU a request. A tick object kept
 * alive keeps its hidden class, and with it the transitions every new tick object takes.
 *
 * Why, responses: V8 settles how many properties a constructor's objects hold inline when it builds
 * the seventh of them ("slack tracking"), from the largest shape among those it built that is still
 * alive. A process that had answered exactly six requests (a test suite's setup over the API, say)
 * and then idled until a full GC freed their responses sized `ServerResponse` for an empty object at
 * its seventh: every later response held its ~44 properties out of line and turned into a
 * dictionary at the first symbol-keyed store of node's own constructor, and every answer cost 20–35 %
 * more CPU. The first response kept alive (with its request and socket) keeps the full shape in the
 * tree the seventh is sized by.
 */
import { createHook } from 'node:async_hooks';
import type { Server } from 'node:http';

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

let firstResponse: object | null = null;

/** Keeps the first response `server` makes, if the process keeps none yet (a listener that removes
 * itself: later requests pay nothing). */
export function keepResponseShape(server: Server): void {
  if (firstResponse !== null) return;
  server.once('request', (_req, res) => {
    firstResponse ??= res;
  });
}
