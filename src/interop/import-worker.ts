/**
 * The import worker (interop/parser-pool.ts starts it): every heavy step of an import runs here, off
 * the main thread — parsing the uploaded text (JSON or YAML), detecting the format, validating,
 * converting Swagger and dereferencing an API description, generating example bodies, and
 * translating the other tools' files. The main thread gets the drafts (docs/interop.md: an import never
 * holds mock traffic for more than 100 ms).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { AppError } from '../domain/errors.js';
import { zipBundle } from './bundle.js';
import { BundleFileError, convertBundle } from './bundle-convert.js';
import { buildContract, parseDocument } from './contract-load.js';
import { convertDocument, detectFormat } from './convert.js';
import { parseJsonLenient } from './json-comments.js';
import { checkOpenApiVersion, loadedOrThrow, parseYaml } from './openapi-import.js';
import { loadHere } from './openapi-load.js';
import type { Task, WorkerAnswer } from './parser-pool.js';
import { lowerOwnPriority, ownThreadId } from './thread-cpu.js';

/** `WorkerAnswer` less its id, per member of the union. */
type Answer = WorkerAnswer extends infer T ? (T extends unknown ? Omit<T, 'id'> : never) : never;

const timeoutMs: number = workerData?.timeoutMs ?? 20_000;
// the mocks of this process come first: this thread takes what they leave of a busy core (thread-cpu.ts)
lowerOwnPriority(workerData?.nice ?? 0);
/** The most files a zip may hold. */
const ZIP_FILES = 5000;

function parse(text: string, yaml: boolean): unknown {
  if (text.trim() === '')
    throw new AppError('validation_failed', 'The body is empty: send a document', [
      { path: '/', message: 'the body is empty' },
    ]);
  if (!yaml) {
    try {
      return parseJsonLenient(text);
    } catch (e) {
      throw new AppError('invalid_json', `The request body is not valid JSON: ${(e as Error).message}`);
    }
  }
  if (text.trim() === '')
    throw new AppError('validation_failed', 'The body is empty', [{ path: '/', message: 'the body is empty' }]);
  return parseYaml(text);
}

const loadHereOrThrow = async (doc: unknown) => {
  checkOpenApiVersion(doc);
  return loadedOrThrow(await loadHere(doc, timeoutMs));
};

async function run(task: Task, id: number): Promise<Answer> {
  if (task.kind === 'load') {
    return { kind: 'load', ...(await loadHere(task.doc as Record<string, unknown>, timeoutMs)) };
  }
  if (task.kind === 'contract') {
    try {
      const input = parseDocument(utf8(task.input), task.yaml);
      return { kind: 'contract', ok: true, contract: await buildContract(input, loadHereOrThrow) };
    } catch (e) {
      return { kind: 'contract', ok: false, error: errorOf(e) };
    }
  }
  try {
    if (task.kind === 'zip') {
      const bundle = await zipBundle(task.input, { maxBytes: task.maxBytes, maxFiles: ZIP_FILES });
      try {
        return { kind: 'convert', ok: true, conv: await convertBundle(bundle, loadHereOrThrow) };
      } catch (e) {
        if (!(e instanceof BundleFileError)) throw e;
        throw new AppError('validation_failed', `A file of the zip cannot be imported: ${e.message}`, [
          { path: `/${e.file}`, message: e.message.slice(e.file.length + 2) },
        ]);
      }
    }
    const doc = task.input instanceof Uint8Array ? parse(utf8(task.input), task.yaml) : task.input;
    const format = task.format ?? detectFormat(doc);
    if (!task.contract || (format !== 'openapi' && format !== 'swagger'))
      return { kind: 'convert', ok: true, conv: await convertDocument(doc, task.format, loadHereOrThrow) };
    // the description is the project's contract too (docs/contract.md): validated and dereferenced once
    // for both; the contract first, since it keeps the document's text before the loader inlines $refs
    let loaded: ReturnType<typeof loadHereOrThrow> | null = null;
    const loadOnce = (d: unknown) => {
      // the pool gives what follows a budget of its own once the document is loaded (parser-pool.ts)
      loaded ??= loadHereOrThrow(d).then((l) => {
        parentPort?.postMessage({ id, loaded: true });
        return l;
      });
      return loaded;
    };
    const contract = await buildContract(doc, loadOnce).then(
      (c) => ({ ok: true as const, contract: c }),
      (e) => ({ ok: false as const, error: errorOf(e) }),
    );
    return { kind: 'convert', ok: true, conv: await convertDocument(doc, task.format, loadOnce), contract };
  } catch (e) {
    return { kind: 'convert', ok: false, error: errorOf(e) };
  }
}

/** The text of uploaded UTF-8 bytes. */
const utf8 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');

/** The API's error for a failed task: an AppError as it is, anything else as the document's fault. */
function errorOf(e: unknown): Extract<Answer, { ok: false; kind: 'convert' }>['error'] {
  if (e instanceof AppError) return { code: e.code, message: e.message, details: e.details };
  const message = String((e as Error)?.message ?? e);
  return { code: 'validation_failed', message, details: [{ path: '/', message }] };
}

parentPort?.on('message', async ({ id, task }: { id: number; task: Task }) => {
  let answer: Answer;
  try {
    answer = await run(task, id);
  } catch (e) {
    answer = { kind: 'load', ok: false, errors: [String((e as Error)?.message ?? e)], more: 0 };
  }
  parentPort?.postMessage({ id, ...answer });
});
// The pool starts a document's time budget once this worker is ready (parser-pool.ts): its modules
// are loaded, and the validator has compiled its OpenAPI 3.0 schema, which it does on first use
// (a tenth of a second or more, several times that on a busy machine).
await loadHere({ openapi: '3.0.3', info: { title: 'warm-up', version: '1' }, paths: {} }, timeoutMs).catch(
  () => undefined,
);
// the pool charges a document this thread's CPU time, which it reads by the thread's id
parentPort?.postMessage({ ready: true, tid: ownThreadId() });
