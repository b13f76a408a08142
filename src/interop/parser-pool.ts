/**
 * Validating and dereferencing an API description runs in worker threads: it is hundreds of
 * milliseconds of synchronous work on a real document, and a hostile one (nested internal `$ref`s,
 * a few KB) can take seconds and gigabytes. So each worker has its own heap and stack limits
 * (`resourceLimits`) and every document a time budget: past either, that import fails with
 * `422 document_too_complex`, the worker is replaced, and the process goes on.
 *
 * A small pool (two workers by default) takes the documents. An owner has at most one document
 * in a worker at a time, and waiting documents are taken round-robin across owners: one user's
 * slow imports queue behind each other, never in front of every other user's (with two workers,
 * another user's import starts at once while one user's bomb runs out its budget).
 * A worker is stopped after a minute without work.
 *
 * The workers run at a lower priority than the mocks (`nice`, 19 by default in the server), and a
 * document's budget is the CPU time its worker spent on it (interop/thread-cpu.ts), so an import on
 * a core the mocks keep busy costs them little and waits rather than fails; past `wallMs` of waiting
 * it fails as `503 unavailable` (the service, not the document, is at fault).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AppError, type ErrorCode, type ErrorDetail } from '../domain/errors.js';
import type { LoadedContract } from './contract-load.js';
import type { LoadAnswer } from './openapi-load.js';
import { threadCpuMs } from './thread-cpu.js';
import type { Converted, ImportFormat } from './types.js';

/**
 * The worker module (interop/import-worker.ts, built to dist/). Under the test runner this module is
 * TypeScript source and the worker runs the built copy: `npm test` builds before it tests.
 */
function workerFile(): URL {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.js')) return new URL('../interop/import-worker.js', import.meta.url);
  const built = path.resolve(path.dirname(here), '../../dist/interop/import-worker.js');
  if (!fs.existsSync(built)) throw new Error(`${built} is missing: build first (npm run build)`);
  return new URL(`file://${built}`);
}

/** What a worker does: validate and dereference (`load`), or parse, detect and convert (`convert`). */
export type Task =
  | { kind: 'load'; doc: unknown }
  /**
   * with `contract`, an OpenAPI or Swagger document is also loaded as a contract (contract-load.ts),
   * parsed, validated and dereferenced once for both; once it is loaded the worker says so
   * (`{ id, loaded: true }`) and the rest (the contract's checks, the mocks) gets a budget of its own
   */
  | { kind: 'convert'; input: Uint8Array | unknown; yaml: boolean; format: ImportFormat | null; contract?: boolean }
  /** a `.zip` of mock files (interop/bundle.ts), at most `maxBytes` once inflated */
  | { kind: 'zip'; input: Uint8Array; maxBytes: number }
  /** a contract (interop/contract-load.ts): its JSON or YAML text as UTF-8 bytes */
  | { kind: 'contract'; input: Uint8Array; yaml: boolean };

type WorkerError = { code: ErrorCode; message: string; details?: ErrorDetail[] };

/** The contract of a converted document (a convert task with `contract`): loaded, or why not. */
export type ContractOutcome = { ok: true; contract: LoadedContract } | { ok: false; error: WorkerError };

export type WorkerAnswer =
  | ({ id: number; kind: 'load' } & LoadAnswer)
  | { id: number; kind: 'convert'; ok: true; conv: Converted; contract?: ContractOutcome }
  | { id: number; kind: 'convert'; ok: false; error: WorkerError }
  | { id: number; kind: 'contract'; ok: true; contract: LoadedContract }
  | { id: number; kind: 'contract'; ok: false; error: WorkerError };

export interface ParserPoolOptions {
  /** workers at once */
  size?: number;
  /** CPU time one document may take, ms (wall time where the thread's CPU time cannot be read) */
  timeoutMs?: number;
  /** wall time one document may take, waiting for a core included, ms (30 × timeoutMs by default) */
  wallMs?: number;
  /** the workers' nice value, 0–19 (0: the mocks' priority) */
  nice?: number;
  /** heap of one worker, MB (old generation; the young one is capped at a tenth of it) */
  heapMb?: number;
  /** idle time after which a worker is stopped, ms */
  idleMs?: number;
  /** the worker module (tests; interop/import-worker.js by default) */
  workerUrl?: URL;
  /** how long a new worker may take to say it is ready, ms (BOOT_MS by default) */
  bootMs?: number;
}

interface Job {
  owner: string;
  task: Task;
  resolve: (a: WorkerAnswer) => void;
  reject: (e: unknown) => void;
}

class Slot {
  worker: Worker | null = null;
  /** resolves once the worker says it is ready (modules loaded, validator warmed up) */
  ready: Promise<void> = Promise.resolve();
  busy = false;
  idle: NodeJS.Timeout | null = null;
  /** the worker's thread id, which its ready message gives (null: its CPU time cannot be read) */
  tid: number | null = null;
}

/**
 * How long a new worker may take to load its modules before the document it was started for fails
 * (`503 unavailable`: the service, not the document, is at fault): the document's own budget starts
 * only once the worker is ready, since a start-up on a busy machine took longer than a short budget
 * (a small document right after a bomb failed as too complex).
 */
const BOOT_MS = 30_000;

/** The task's bytes in an ArrayBuffer of their own (a pooled Buffer shares one: copy it once). */
function ownBuffer(t: Extract<Task, { kind: 'convert' | 'zip' | 'contract' }>): ArrayBuffer {
  const b = t.input as Uint8Array;
  if (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer) return b.buffer;
  const copy = new Uint8Array(b);
  t.input = copy;
  return copy.buffer;
}

export class ParserPool {
  private readonly slots: Slot[];
  /** waiting jobs per owner; the Map's order is the round-robin order */
  private readonly waiting = new Map<string, Job[]>();
  /** owners with a document in a worker */
  private readonly running = new Set<string>();
  private nextId = 1;
  private readonly timeoutMs: number;
  private readonly wallMs: number;
  private readonly nice: number;
  private readonly heapMb: number;
  private readonly idleMs: number;
  private readonly workerUrl: URL | undefined;
  private readonly bootMs: number;

  constructor(opts: ParserPoolOptions = {}) {
    this.workerUrl = opts.workerUrl;
    this.bootMs = opts.bootMs ?? BOOT_MS;
    this.slots = Array.from({ length: opts.size ?? 2 }, () => new Slot());
    this.timeoutMs = opts.timeoutMs ?? 20_000;
    this.wallMs = opts.wallMs ?? this.timeoutMs * 30;
    this.nice = opts.nice ?? 0;
    this.heapMb = opts.heapMb ?? 512;
    this.idleMs = opts.idleMs ?? 60_000;
  }

  /** Validates and dereferences `doc` for `owner` (fairness key). */
  async load(owner: string, doc: unknown): Promise<LoadAnswer> {
    return (await this.run(owner, { kind: 'load', doc })) as LoadAnswer;
  }

  /**
   * Parses (bytes: UTF-8 JSON, or YAML when `yaml`; the bytes are moved to the worker), detects the format when `format` is null, and
   * converts the document — all in a worker: the main thread gets the drafts only (docs/interop.md).
   * Throws the import's AppError.
   */
  async convert(
    owner: string,
    input: string | unknown,
    yaml: boolean,
    format: ImportFormat | null,
  ): Promise<Converted> {
    const a = await this.run(owner, { kind: 'convert', input, yaml, format });
    if (a.kind !== 'convert') throw new Error('unexpected worker answer');
    if (a.ok) return a.conv;
    throw new AppError(a.error.code, a.error.message, a.error.details);
  }

  /**
   * `convert` of an upload that may be an OpenAPI or Swagger description, which is then loaded as the
   * project's contract in the same task (docs/contract.md): `contract` is null for any other format,
   * else the loaded contract or the error that kept it from loading. Throws the import's AppError.
   */
  async convertWithContract(
    owner: string,
    input: Uint8Array,
    yaml: boolean,
    format: ImportFormat | null,
  ): Promise<{ conv: Converted; contract: LoadedContract | AppError | null }> {
    const a = await this.run(owner, { kind: 'convert', input, yaml, format, contract: true });
    if (a.kind !== 'convert') throw new Error('unexpected worker answer');
    if (!a.ok) throw new AppError(a.error.code, a.error.message, a.error.details);
    const c = a.contract;
    return {
      conv: a.conv,
      contract: !c ? null : c.ok ? c.contract : new AppError(c.error.code, c.error.message, c.error.details),
    };
  }

  /** The mocks of an uploaded `.zip`, converted in a worker. */
  async convertZip(owner: string, input: Uint8Array, maxBytes: number): Promise<Converted> {
    const a = await this.run(owner, { kind: 'zip', input, maxBytes });
    if (a.kind !== 'convert') throw new Error('unexpected worker answer');
    if (a.ok) return a.conv;
    throw new AppError(a.error.code, a.error.message, a.error.details);
  }

  /** Checks, resolves and compiles a contract in a worker (interop/contract-load.ts); throws the API's error. */
  async contract(owner: string, input: Uint8Array, yaml: boolean): Promise<LoadedContract> {
    const a = await this.run(owner, { kind: 'contract', input, yaml });
    if (a.kind !== 'contract') throw new Error('unexpected worker answer');
    if (a.ok) return a.contract;
    throw new AppError(a.error.code, a.error.message, a.error.details);
  }

  private run(owner: string, task: Task): Promise<WorkerAnswer> {
    return new Promise<WorkerAnswer>((resolve, reject) => {
      const queue = this.waiting.get(owner);
      const job = { owner, task, resolve, reject };
      if (queue) queue.push(job);
      else this.waiting.set(owner, [job]);
      this.dispatch();
    });
  }

  /** Stops every worker (tests, shutdown). */
  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => this.stop(s)));
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.busy) continue;
      const job = this.take();
      if (!job) return;
      this.exec(slot, job);
    }
  }

  /** The next job: the oldest of the first owner with none running; that owner goes to the back of the line. */
  private take(): Job | null {
    for (const [owner, queue] of this.waiting) {
      if (this.running.has(owner)) continue;
      const job = queue.shift();
      this.waiting.delete(owner);
      if (queue.length > 0) this.waiting.set(owner, queue);
      if (job) return job;
    }
    return null;
  }

  private start(slot: Slot): Worker {
    const w = new Worker(this.workerUrl ?? workerFile(), {
      // the parser's own time check (wall time) is a backstop, a second past the pool's last: the pool's
      // timer must fire first, since it answers 422 document_too_complex (the parser's would read as invalid)
      workerData: { timeoutMs: this.wallMs + 1000, nice: this.nice },
      resourceLimits: {
        maxOldGenerationSizeMb: this.heapMb,
        maxYoungGenerationSizeMb: Math.max(8, Math.floor(this.heapMb / 10)),
        stackSizeMb: 4,
      },
    });
    w.unref();
    w.on('error', () => {});
    slot.tid = null;
    slot.ready = new Promise<void>((resolve) => {
      const onReady = (m: { ready?: boolean; tid?: number | null }) => {
        if (m?.ready !== true) return;
        w.off('message', onReady);
        if (slot.worker === w) slot.tid = typeof m.tid === 'number' ? m.tid : null;
        resolve();
      };
      w.on('message', onReady);
    });
    return w;
  }

  /**
   * The document's budget from now: `timeoutMs` of the worker thread's CPU time (of wall time where
   * that cannot be read) and `wallMs` of wall time, whichever runs out first. Returns its cancel.
   */
  private budget(
    tid: number | null,
    fail: (message: string, code?: 'document_too_complex' | 'unavailable') => void,
  ): () => void {
    const cpu0 = threadCpuMs(tid);
    const t0 = Date.now();
    let timer: NodeJS.Timeout;
    const check = () => {
      const waited = Date.now() - t0;
      const cpu = cpu0 === null ? null : threadCpuMs(tid);
      const used = cpu === null || cpu0 === null ? waited : cpu - cpu0;
      if (used >= this.timeoutMs) {
        fail(`the document took longer than ${this.timeoutMs} ms to validate (nested $refs?)`);
      } else if (waited >= this.wallMs) {
        fail(`the import waited ${this.wallMs} ms for a busy server without finishing: try again`, 'unavailable');
      } else {
        timer = setTimeout(check, Math.max(10, Math.min(this.timeoutMs - used, this.wallMs - waited)));
      }
    };
    timer = setTimeout(check, Math.min(this.timeoutMs, this.wallMs));
    return () => clearTimeout(timer);
  }

  private stop(slot: Slot): Promise<unknown> {
    const w = slot.worker;
    slot.worker = null;
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = null;
    return w ? w.terminate().catch(() => {}) : Promise.resolve();
  }

  private exec(slot: Slot, job: Job): void {
    if (slot.idle) clearTimeout(slot.idle);
    slot.idle = null;
    slot.busy = true;
    this.running.add(job.owner);
    slot.worker ??= this.start(slot);
    const w = slot.worker;
    const ready = slot.ready;
    const id = this.nextId++;
    let settled = false;
    const done = () => {
      settled = true;
      cancel();
      w.off('message', onMessage);
      w.off('exit', onExit);
      slot.busy = false;
      this.running.delete(job.owner);
      if (slot.worker === w) {
        slot.idle = setTimeout(() => void this.stop(slot), this.idleMs);
        slot.idle.unref();
      }
      this.dispatch();
    };
    const fail = (message: string, code: 'document_too_complex' | 'unavailable' = 'document_too_complex') => {
      if (settled) return;
      // the worker is replaced: a document that exhausted it must not leave it half-dead
      if (slot.worker === w) void this.stop(slot);
      done();
      job.reject(new AppError(code, message, [{ path: '/', message }]));
    };
    const onMessage = (m: WorkerAnswer | { id: number; loaded: true }) => {
      if (m.id !== id || settled) return;
      if ('loaded' in m) {
        // a convert with its contract: the document is validated and dereferenced within its budget,
        // and building the contract and the mocks from it gets one of its own
        cancel();
        cancel = this.budget(slot.tid, fail);
        return;
      }
      done();
      job.resolve(m);
    };
    const onExit = () =>
      fail(`the document needs more than the ${this.heapMb} MB a document may use to validate (nested $refs?)`);
    // the budget counts from the moment the worker is ready (a new one loads its modules first)
    const boot = setTimeout(
      () => fail(`the import worker did not start within ${this.bootMs} ms`, 'unavailable'),
      this.bootMs,
    );
    let cancel = () => clearTimeout(boot);
    void ready.then(() => {
      if (settled) return;
      clearTimeout(boot);
      cancel = this.budget(slot.tid, fail);
    });
    w.on('message', onMessage);
    w.on('exit', onExit);
    try {
      const t = job.task;
      // the uploaded bytes are moved, not copied: a 32 MiB body costs the main thread nothing here
      const transfer = t.kind !== 'load' && t.input instanceof Uint8Array ? [ownBuffer(t)] : [];
      w.postMessage({ id, task: t }, transfer);
    } catch {
      if (settled) return;
      done();
      job.reject(
        new AppError('validation_failed', 'The document cannot be read as data', [
          { path: '/', message: 'the document cannot be read as data' },
        ]),
      );
    }
  }
}
