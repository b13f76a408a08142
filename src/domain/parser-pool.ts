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
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AppError } from '../errors.js';

type Json = Record<string, unknown>;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { validate, dereference } = require(workerData.lib);
const options = { resolve: { external: false, file: false }, timeoutMs: workerData.timeoutMs };
let upgrade = null;
const esc = (k) => String(k).replace(/~/g, '~0').replace(/\\//g, '~1');
// the first $ref that points outside the document (a file or a URL), depth first, with its JSON pointer
function externalRef(doc) {
  const stack = [[doc, '']];
  while (stack.length > 0) {
    const [v, at] = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (!Array.isArray(v) && typeof v.$ref === 'string' && !v.$ref.startsWith('#')) return { ref: v.$ref, at: at + '/$ref' };
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) stack.push([v[keys[i]], at + '/' + esc(keys[i])]);
  }
  return null;
}
parentPort.on('message', async ({ id, doc }) => {
  try {
    const external = externalRef(doc);
    if (external) {
      parentPort.postMessage({ id, ok: false, external, errors: [], more: 0 });
      return;
    }
    const result = await validate(structuredClone(doc), options);
    if (!result.valid) {
      parentPort.postMessage({ id, ok: false, errors: result.errors.map((e) => String(e.message)), more: result.additionalErrors });
      return;
    }
    let swagger = false;
    if (typeof doc.swagger === 'string') {
      upgrade ??= (await import(workerData.upgrader)).upgrade;
      doc = upgrade(doc, '3.0');
      swagger = true;
    }
    parentPort.postMessage({ id, ok: true, swagger, doc: await dereference(doc, options) });
  } catch (e) {
    parentPort.postMessage({ id, ok: false, errors: [String((e && e.message) || e)], more: 0 });
  }
});
`;

export type ParserAnswer =
  | { id: number; ok: true; doc: Json; swagger: boolean }
  | { id: number; ok: false; errors: string[]; more: number; external?: { ref: string; at: string } };

export interface ParserPoolOptions {
  /** workers at once */
  size?: number;
  /** time one document may take, ms */
  timeoutMs?: number;
  /** heap of one worker, MB (old generation; the young one is capped at a tenth of it) */
  heapMb?: number;
  /** idle time after which a worker is stopped, ms */
  idleMs?: number;
}

interface Job {
  owner: string;
  doc: Json;
  resolve: (a: ParserAnswer) => void;
  reject: (e: unknown) => void;
}

class Slot {
  worker: Worker | null = null;
  busy = false;
  idle: NodeJS.Timeout | null = null;
}

export class ParserPool {
  private readonly slots: Slot[];
  /** waiting jobs per owner; the Map's order is the round-robin order */
  private readonly waiting = new Map<string, Job[]>();
  /** owners with a document in a worker */
  private readonly running = new Set<string>();
  private nextId = 1;
  private readonly timeoutMs: number;
  private readonly heapMb: number;
  private readonly idleMs: number;

  constructor(opts: ParserPoolOptions = {}) {
    this.slots = Array.from({ length: opts.size ?? 2 }, () => new Slot());
    this.timeoutMs = opts.timeoutMs ?? 20_000;
    this.heapMb = opts.heapMb ?? 256;
    this.idleMs = opts.idleMs ?? 60_000;
  }

  /** Validates and dereferences `doc` for `owner` (fairness key). */
  run(owner: string, doc: Json): Promise<ParserAnswer> {
    return new Promise<ParserAnswer>((resolve, reject) => {
      const queue = this.waiting.get(owner);
      const job = { owner, doc, resolve, reject };
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

  private start(): Worker {
    const require = createRequire(import.meta.url);
    const lib = require.resolve('@readme/openapi-parser');
    // Swagger 2.0 → OpenAPI 3.0: a maintained converter (ESM), loaded by the worker on the first one
    const upgrader = pathToFileURL(require.resolve('@scalar/openapi-upgrader')).href;
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { lib, upgrader, timeoutMs: this.timeoutMs },
      resourceLimits: {
        maxOldGenerationSizeMb: this.heapMb,
        maxYoungGenerationSizeMb: Math.max(8, Math.floor(this.heapMb / 10)),
        stackSizeMb: 4,
      },
    });
    w.unref();
    w.on('error', () => {});
    return w;
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
    slot.worker ??= this.start();
    const w = slot.worker;
    const id = this.nextId++;
    let settled = false;
    const done = () => {
      settled = true;
      clearTimeout(timer);
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
    const fail = (message: string) => {
      if (settled) return;
      // the worker is replaced: a document that exhausted it must not leave it half-dead
      if (slot.worker === w) void this.stop(slot);
      done();
      job.reject(new AppError('document_too_complex', message, [{ path: '/', message }]));
    };
    const onMessage = (m: ParserAnswer) => {
      if (m.id !== id || settled) return;
      done();
      job.resolve(m);
    };
    const onExit = () =>
      fail(`the document needs more than the ${this.heapMb} MB a document may use to validate (nested $refs?)`);
    const timer = setTimeout(
      () => fail(`the document took longer than ${this.timeoutMs} ms to validate (nested $refs?)`),
      this.timeoutMs,
    );
    w.on('message', onMessage);
    w.on('exit', onExit);
    try {
      w.postMessage({ id, doc: job.doc });
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
