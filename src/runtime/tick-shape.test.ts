/**
 * keepTickShape keeps one of nextTick's own objects, once a process — of the hidden class that every
 * later tick object takes, also after a full GC that keeps no unused hidden classes (what V8's memory
 * reducer runs when the process is idle). The class is read with V8's `%HaveSameMap` in a child process.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { keepTickShape } from './tick-shape.js';

it("keeps a nextTick object (its callback and Node's two async-id symbols), the same one on every call", () => {
  const kept = keepTickShape() as Record<string | symbol, unknown> | null;
  expect(kept).not.toBeNull();
  expect(typeof kept?.callback).toBe('function');
  expect(Object.getOwnPropertySymbols(kept).map((s) => s.description)).toEqual([
    'async_id_symbol',
    'trigger_async_id_symbol',
  ]);
  expect(keepTickShape()).toBe(kept);
});

it('keeps the hidden class of later tick objects, through a memory-reducing full GC', () => {
  // the build of this module (npm test builds before it tests)
  const module = fileURLToPath(new URL('../../dist/runtime/tick-shape.js', import.meta.url));
  const child = `
    import { createHook } from 'node:async_hooks';
    const { keepTickShape } = await import(${JSON.stringify(module)});
    const kept = keepTickShape();
    const tick = () => {
      let seen = null;
      const hook = createHook({ init(_id, type, _t, res) { if (type === 'TickObject' && !seen) seen = res; } }).enable();
      process.nextTick(() => {});
      hook.disable();
      return seen;
    };
    const before = %HaveSameMap(kept, tick());
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    console.log(JSON.stringify({ before, after: %HaveSameMap(kept, tick()) }));`;
  const out = spawnSync(
    process.execPath,
    ['--allow-natives-syntax', '--expose-gc', '--input-type=module', '-e', child],
    { encoding: 'utf8', timeout: 20_000 },
  );
  expect(out.stderr).toBe('');
  expect(JSON.parse(out.stdout)).toEqual({ before: true, after: true });
});
