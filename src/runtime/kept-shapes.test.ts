/**
 * kept-shapes.ts keeps, once a process, one of nextTick's own objects and the first response, so
 * that V8 keeps their hidden classes through a full GC that keeps no unused ones (what V8's memory
 * reducer runs when the process is idle). Classes and property storage are read with V8's
 * `%HaveSameMap` and `%HasFastProperties` in a child process.
 */
import { expect, it } from 'vitest';
import { distModule, runScript } from '../../test/helpers/child-script.js';
import { keepTickShape } from './kept-shapes.js';

const NATIVES = ['--allow-natives-syntax', '--expose-gc'];

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
  const script = `
    import { createHook } from 'node:async_hooks';
    const { keepTickShape } = await import(${distModule('runtime/kept-shapes.js')});
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
  expect(runScript(script, NATIVES)).toEqual({ before: true, after: true });
});

/**
 * Six requests answered, a full GC, a seventh: bare node:http's seventh response (and every later
 * one) is a dictionary of properties; the server's stays as fast as the first six. Each in a process
 * of its own (the class, and how V8 sized it, is the process's).
 */
function sevenAfterGc(start: string): boolean[] {
  const script = `
    import http from 'node:http';
    let last = null;
    const emit = http.Server.prototype.emit;
    http.Server.prototype.emit = function (event, _req, res) {
      if (event === 'request') last = res;
      return emit.apply(this, arguments);
    };
    const get = (port, path) => new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path, agent: false }, (r) => r.resume().on('end', resolve)).on('error', reject);
    });
    ${start}
    const fast = [];
    for (let i = 0; i < 6; i++) { await get(port, path); fast.push(%HasFastProperties(last)); }
    last = null;
    // the six sockets close in the next turns; then nothing holds their responses
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 10));
      gc(); // a plain full GC (the last-resort flavor keeps the hidden classes)
    }
    for (let i = 0; i < 2; i++) { await get(port, path); fast.push(%HasFastProperties(last)); }
    await close();
    console.log(JSON.stringify(fast));`;
  return runScript(script, NATIVES) as boolean[];
}

it('keeps responses in fast properties when the seventh comes after a full GC, where bare node:http loses them', () => {
  const bare = sevenAfterGc(`
    const server = http.createServer((_req, res) => res.end('ok'));
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const port = server.address().port;
    const path = '/';
    const close = async () => server.close();`);
  // the premise: should V8 stop doing this, kept-shapes.ts need not keep a response
  expect(bare).toEqual([true, true, true, true, true, true, false, false]);
  const mockyard = sevenAfterGc(`
    const { loadConfig } = await import(${distModule('config.js')});
    const { startServer } = await import(${distModule('server.js')});
    const running = await startServer(
      loadConfig({ DATABASE_URL: 'sqlite::memory:', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }),
    );
    const port = running.port;
    const path = '/healthz';
    const close = () => running.close();`);
  expect(mockyard).toEqual([true, true, true, true, true, true, true, true]);
});
