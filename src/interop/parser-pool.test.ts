/**
 * The parser pool under a hostile document (nested internal `$ref`s, 5 KB): the import fails with
 * `422 document_too_complex` when it runs out of time or of its worker's memory, the worker is
 * replaced, and another owner's document is not held behind it.
 */
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { refBomb } from '../../test/fixtures/ref-bomb.js';
import type { AppError } from '../domain/errors.js';
import { ParserPool } from './parser-pool.js';
import { ownThreadId, threadNice } from './thread-cpu.js';

/** Threads and their CPU time are read from /proc: Linux only (elsewhere the budget is wall time). */
const linux = ownThreadId() !== null;
const idleWorker = new URL('../../test/fixtures/idle-worker.mjs', import.meta.url);

const small = {
  openapi: '3.0.0',
  info: { title: 'small', version: '1' },
  paths: { '/a': { get: { responses: { '200': { description: 'ok' } } } } },
};

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: AppError) => e,
  );

describe('ParserPool', () => {
  let pool: ParserPool;
  afterEach(() => pool?.close());

  it('fails a document past its time budget with 422 document_too_complex, then serves the next one', async () => {
    pool = new ParserPool({ size: 1, timeoutMs: 1500 });
    const started = Date.now();
    const e = await failure(pool.load('mallory', refBomb()));
    expect(e?.code).toBe('document_too_complex');
    expect(e?.status).toBe(422);
    // the budget is the worker's CPU time: on a core shared with one other busy thread, twice its wall time
    expect(Date.now() - started).toBeLessThan(2 * 1500 + 3000);
    const ok = await pool.load('mallory', small);
    expect(ok.ok).toBe(true);
  });

  it('fails a document that exhausts its worker’s heap, and the process goes on', async () => {
    pool = new ParserPool({ size: 1, timeoutMs: 60_000, heapMb: 24 });
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 200_000; i++) paths[`/p${i}`] = { get: { responses: { '200': { description: `ok ${i}` } } } };
    const e = await failure(pool.load('mallory', { ...small, paths }));
    expect(e?.code).toBe('document_too_complex');
    expect((await pool.load('alice', small)).ok).toBe(true);
  });

  it('starts a document’s time budget once its worker is ready, not while the worker starts', async () => {
    // the stand-in worker takes 800 ms to start and then answers at once: a 300 ms budget holds
    const workerUrl = new URL('../../test/fixtures/slow-start-worker.mjs', import.meta.url);
    pool = new ParserPool({ size: 1, timeoutMs: 300, workerUrl });
    const answer = await pool.load('alice', small);
    expect(answer).toEqual({ id: expect.any(Number), kind: 'load', ok: true, doc: small, swagger: false });
  });

  it('answers 503 unavailable, not a fault of the document, when a worker does not start in time', async () => {
    const workerUrl = new URL('../../test/fixtures/slow-start-worker.mjs', import.meta.url);
    pool = new ParserPool({ size: 1, timeoutMs: 5000, bootMs: 200, workerUrl });
    const e = await failure(pool.load('alice', small));
    expect(e?.code).toBe('unavailable');
    expect(e?.message).toMatch(/did not start within 200 ms/);
  });

  it('does not hold another owner’s document behind one owner’s slow ones', async () => {
    pool = new ParserPool({ size: 2, timeoutMs: 2000 });
    const bombs = [
      pool.load('mallory', refBomb()),
      pool.load('mallory', refBomb()),
      pool.load('mallory', refBomb()),
    ].map(failure);
    let bombsFailed = 0;
    for (const b of bombs) void b.then(() => bombsFailed++);
    const alice = await pool.load('alice', small);
    expect(alice.ok).toBe(true);
    // mallory runs one document at a time: alice got the second worker at once, so her document
    // was answered before any bomb ran out its budget (held behind one, she would come after it;
    // an order, not a wall-clock bound, which a busy machine stretched past 1.5 s)
    expect(bombsFailed).toBe(0);
    for (const e of await Promise.all(bombs)) expect(e?.code).toBe('document_too_complex');
  });

  it.runIf(linux)('runs its workers at the nice value it is given, the other threads at theirs', async () => {
    pool = new ParserPool({ size: 1, timeoutMs: 20_000, nice: 7 });
    expect((await pool.load('alice', small)).ok).toBe(true);
    const nices = fs.readdirSync('/proc/self/task').map((t) => threadNice(Number(t)));
    expect(nices.filter((n) => n === 7)).toHaveLength(1);
    expect(threadNice(ownThreadId() as number)).not.toBe(7);
  });

  it.runIf(linux)('charges a document its worker’s CPU time, not the time it waits for a core', async () => {
    // the stand-in worker holds each document 600 ms without using the CPU: a 200 ms budget holds
    pool = new ParserPool({ size: 1, timeoutMs: 200, workerUrl: idleWorker });
    const answer = await pool.load('alice', small);
    expect(answer).toMatchObject({ kind: 'load', ok: true, doc: small });
  });

  it.runIf(linux)('answers 503 unavailable when a document waits past its wall time', async () => {
    pool = new ParserPool({ size: 1, timeoutMs: 200, wallMs: 300, workerUrl: idleWorker });
    const e = await failure(pool.load('alice', small));
    expect(e?.code).toBe('unavailable');
    expect(e?.message).toMatch(/waited 300 ms for a busy server/);
  });

  it.runIf(linux)('gives an import with its contract a second budget once its document is loaded', async () => {
    // the stand-in holds a document 600 ms, past a 400 ms wall budget; one with its contract 300 ms,
    // says it is loaded, and 300 ms more: within a budget each
    pool = new ParserPool({ size: 1, timeoutMs: 200, wallMs: 400, workerUrl: idleWorker });
    expect((await failure(pool.load('alice', small)))?.code).toBe('unavailable');
    const bytes = new TextEncoder().encode(JSON.stringify(small));
    const { conv, contract } = await pool.convertWithContract('alice', bytes, false, 'openapi');
    expect(conv).toMatchObject({ format: 'openapi', endpoints: [] });
    expect(contract).toMatchObject({ code: 'validation_failed', message: 'stand-in' });
  });
});
