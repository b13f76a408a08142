/**
 * The mocks of a bundle (a folder or a zip: interop/bundle.ts) as one document: every file in any
 * import format, merged in path order; the stubs of all WireMock files read as one mappings list with
 * their `bodyFileName`s from `__files`; Mockoon `FILE` bodies read beside the environment; an OpenAPI
 * description split in files put together from its relative `$ref`s (docs/interop.md "Folders and
 * zips"). Nothing outside the bundle is read.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '../domain/errors.js';
import { routeKey } from '../domain/paths.js';
import type { Bundle } from './bundle.js';
import { inScope, within } from './bundle.js';
import { convertDocument, detectFormat, type OpenApiLoader } from './convert.js';
import { parseJsonLenient } from './json-comments.js';
import { parseYaml } from './openapi-import.js';
import { type Converted, emptyConverted, isObject, type Json } from './types.js';
import { convertWireMock } from './wiremock.js';

/** The largest body file read for a stub or a route (the body limit of a step). */
const BODY_FILE_BYTES = 512 * 1024;
/** The largest document read. */
const DOCUMENT_BYTES = 32 * 1024 * 1024;

/** A file of the bundle that cannot be used, named by its relative path. */
export class BundleFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'BundleFileError';
  }
}

const dirOf = (rel: string) => path.posix.dirname(rel).replace(/^\.$/, '');

function parse(rel: string, bytes: Buffer): unknown {
  const text = bytes.toString('utf8');
  if (/\.json$/i.test(rel)) {
    try {
      return parseJsonLenient(text);
    } catch (e) {
      throw new BundleFileError(rel, `is not valid JSON: ${(e as Error).message}`);
    }
  }
  try {
    return parseYaml(text);
  } catch (e) {
    throw new BundleFileError(rel, e instanceof AppError ? (e.details?.[0]?.message ?? e.message) : String(e));
  }
}

/** Merges `b` into `a`: a route or collection already in `a` keeps `a`'s, with a warning. */
export function merge(a: Converted, b: Converted, file: string | null): void {
  const at = (p: string) => (file === null ? p : `${file}#${p}`);
  const routes = new Set(a.endpoints.map((e) => `${e.method} ${routeKey(e.path)}`));
  for (const e of b.endpoints) {
    const key = `${e.method} ${routeKey(e.path)}`;
    if (routes.has(key)) {
      a.warnings.push({
        pointer: at(e.pointer),
        message: `${e.method} ${e.path} is defined by an earlier file; not served`,
      });
      continue;
    }
    routes.add(key);
    a.endpoints.push({ ...e, pointer: at(e.pointer), rules: e.rules.map((r) => ({ ...r, pointer: at(r.pointer) })) });
  }
  for (const c of b.collections) {
    if (a.collections.some((x) => x.name === c.name))
      a.warnings.push({ pointer: at(c.pointer), message: `collection ${c.name} is defined by an earlier file` });
    else a.collections.push({ ...c, pointer: at(c.pointer) });
  }
  a.projectStorage.push(...b.projectStorage);
  a.skipped.push(...b.skipped);
  a.warnings.push(...b.warnings.map((w) => ({ ...w, pointer: at(w.pointer) })));
  a.fallbackUrl ??= b.fallbackUrl;
  if (b.config) a.config = { ...b.config, ...a.config };
  a.validation ??= b.validation;
  if (b.contractJson !== undefined) {
    if (a.contractJson === undefined) a.contractJson = b.contractJson;
    else
      a.warnings.push({ pointer: at('/contract'), message: 'a contract is defined by an earlier file; not attached' });
  }
  a.name ??= b.name;
}

/** Text of a file when it is UTF-8, else null. */
const utf8 = (b: Buffer) => {
  const t = b.toString('utf8');
  return Buffer.from(t, 'utf8').equals(b) ? t : null;
};

/** WireMock's `__files` for stubs in `dir`: beside them, or beside their folder; any letter case. */
async function filesFolder(bundle: Bundle, dir: string): Promise<string | null> {
  for (const d of dir === '' ? [''] : [dir, dirOf(dir)]) {
    const found = (await bundle.children(d)).find((n) => n.toLowerCase() === '__files');
    if (found) return d === '' ? found : `${d}/${found}`;
  }
  return null;
}

async function readBodyFiles(bundle: Bundle, stubs: Json[], dirs: string[]): Promise<void> {
  for (const [i, stub] of stubs.entries()) {
    const res = isObject(stub.response) ? stub.response : null;
    if (!res || typeof res.bodyFileName !== 'string' || res.body !== undefined || res.jsonBody !== undefined) continue;
    const folder = await filesFolder(bundle, dirs[i]);
    const rel = folder === null ? null : within(folder, res.bodyFileName);
    // never outside __files: a name that climbs out is left unread (the importer warns: empty body)
    if (rel === null || folder === null || !rel.startsWith(`${folder}/`)) continue;
    const bytes = await bundle.read(rel, BODY_FILE_BYTES);
    const text = bytes === null ? null : utf8(bytes);
    if (text === null) continue;
    const { bodyFileName: _read, ...rest } = res;
    stubs[i] = { ...stub, response: { ...rest, body: text } };
  }
}

const MIME: Record<string, string> = {
  json: 'application/json',
  txt: 'text/plain',
  html: 'text/html',
  htm: 'text/html',
  xml: 'application/xml',
  csv: 'text/csv',
  js: 'application/javascript',
  css: 'text/css',
  yaml: 'application/yaml',
  yml: 'application/yaml',
};

/** The `filePath`s of an environment's FILE responses. */
function mockoonFiles(env: Json): string[] {
  const out: string[] = [];
  for (const route of Array.isArray(env.routes) ? env.routes : [])
    for (const res of isObject(route) && Array.isArray(route.responses) ? route.responses : [])
      if (isObject(res) && res.bodyType === 'FILE' && typeof res.filePath === 'string')
        out.push(res.filePath.replace(/\\/g, '/'));
  return out;
}

/** Mockoon `FILE` bodies read beside the environment (its `filePath` is relative to the file). */
async function readMockoonFiles(bundle: Bundle, env: Json, dir: string): Promise<void> {
  for (const route of Array.isArray(env.routes) ? env.routes : []) {
    for (const res of isObject(route) && Array.isArray(route.responses) ? route.responses : []) {
      if (!isObject(res) || res.bodyType !== 'FILE' || typeof res.filePath !== 'string' || res.filePath.includes('{{'))
        continue;
      const rel = within(dir, res.filePath.replace(/\\/g, '/'));
      const bytes = rel === null || !inScope(bundle, rel) ? null : await bundle.read(rel, BODY_FILE_BYTES);
      const text = bytes === null ? null : utf8(bytes);
      if (text === null) continue;
      const headers = Array.isArray(res.headers) ? [...res.headers] : [];
      const has = (n: string) => headers.some((h) => isObject(h) && String(h.key).toLowerCase() === n);
      const ext = path.posix.extname(res.filePath).slice(1).toLowerCase();
      // as Mockoon sends a file: its type from the name when the route sets none, and an attachment
      if (!has('content-type') && MIME[ext]) headers.push({ key: 'Content-Type', value: MIME[ext] });
      if (res.sendFileAsBody !== true && !has('content-disposition'))
        headers.push({
          key: 'Content-Disposition',
          value: `attachment; filename="${path.posix.basename(res.filePath)}"`,
        });
      Object.assign(res, { bodyType: 'INLINE', body: text, headers });
    }
  }
}

/** The relative `$ref`s of a parsed document (not `#…`), each resolved from `dir`. */
function externalRefs(bundle: Bundle, doc: unknown, dir: string, rel: string): string[] {
  const out = new Set<string>();
  const stack: unknown[] = [doc];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    const ref = (v as Json).$ref;
    if (!Array.isArray(v) && typeof ref === 'string' && !ref.startsWith('#')) {
      const file = ref.split('#')[0];
      const target = /^[a-z][a-z0-9+.-]*:/i.test(file) ? null : within(dir, file);
      if (target === null || !inScope(bundle, target))
        throw new BundleFileError(rel, `$ref ${ref} points outside the upload; it is not read`);
      out.add(target);
    }
    stack.push(...Object.values(v as object));
  }
  return [...out];
}

/**
 * An OpenAPI description with relative `$ref`s to other files of the bundle, put together into one
 * document (internal `$ref`s only). Every file it reaches is checked to be inside the bundle first;
 * the parser then reads them from a private copy.
 */
async function joinOpenApi(bundle: Bundle, rel: string, doc: unknown): Promise<unknown> {
  const reached = new Map<string, unknown>([[rel, doc]]);
  const queue = externalRefs(bundle, doc, dirOf(rel), rel);
  if (queue.length === 0) return doc;
  while (queue.length > 0) {
    const next = queue.pop() as string;
    if (reached.has(next)) continue;
    const bytes = await bundle.read(next, DOCUMENT_BYTES);
    if (bytes === null) throw new BundleFileError(rel, `$ref to ${next}: no such file in the upload`);
    const part = parse(next, bytes);
    reached.set(next, part);
    queue.push(...externalRefs(bundle, part, dirOf(next), next));
  }
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'mockyard-openapi-'));
  try {
    for (const [name, value] of reached) {
      const file = path.join(tmp, ...name.split('/'));
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, JSON.stringify(value));
    }
    const { bundle: join } = await import('@readme/openapi-parser');
    return await join(path.join(tmp, ...rel.split('/')), { resolve: { external: true, file: true } } as never);
  } catch (e) {
    if (e instanceof BundleFileError) throw e;
    throw new BundleFileError(rel, `its $refs cannot be resolved: ${(e as Error).message}`);
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

/** Every mock of the bundle as one `Converted`. Throws BundleFileError naming a file that cannot be used. */
export async function convertBundle(bundle: Bundle, loadOpenApi: OpenApiLoader): Promise<Converted> {
  const out = emptyConverted('mockyard');
  const parsed: [string, unknown, ReturnType<typeof detectFormat>][] = [];
  for (const rel of bundle.documents) {
    const bytes = await bundle.read(rel, DOCUMENT_BYTES);
    if (bytes === null) throw new BundleFileError(rel, 'cannot be read');
    const doc = parse(rel, bytes);
    parsed.push([rel, doc, detectFormat(doc)]);
  }
  if (parsed.length === 0) throw new BundleFileError('.', 'holds no .json, .yaml or .yml file');
  // parts of a split OpenAPI description and Mockoon file bodies are no mocks of their own
  const referenced = new Set<string>();
  for (const [rel, doc, format] of parsed) {
    if (format === 'openapi' || format === 'swagger')
      try {
        for (const r of externalRefs(bundle, doc, dirOf(rel), rel)) referenced.add(r);
      } catch {
        // reported when the description is read
      }
    if (format === 'mockoon')
      for (const f of mockoonFiles(doc as Json)) {
        const r = within(dirOf(rel), f);
        if (r !== null) referenced.add(r);
      }
  }
  const stubs: Json[] = [];
  const stubFiles: string[] = [];
  for (const [rel, doc, format] of parsed) {
    if (format === null) {
      if (referenced.has(rel)) continue;
      throw new BundleFileError(
        rel,
        'is none of the formats mockyard reads (OpenAPI, Swagger, WireMock, Mockoon, Postman, HAR, a Mockyard export)',
      );
    }
    if (format === 'wiremock') {
      const list = Array.isArray(doc) ? doc : isObject(doc) && Array.isArray(doc.mappings) ? doc.mappings : [doc];
      for (const m of list as Json[]) {
        stubs.push(m);
        stubFiles.push(rel);
      }
      continue;
    }
    let input = doc;
    if (format === 'mockoon') await readMockoonFiles(bundle, doc as Json, dirOf(rel));
    if (format === 'openapi' || format === 'swagger') input = await joinOpenApi(bundle, rel, doc);
    try {
      merge(out, await convertDocument(input, format, loadOpenApi), rel);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      const first = e.details?.[0];
      throw new BundleFileError(rel, first ? `${e.message} (${first.path}: ${first.message})` : e.message);
    }
  }
  // the report names the files' format when they share one
  const formats = new Set(parsed.map(([, , f]) => f).filter((f) => f !== null));
  if (formats.size === 1) out.format = [...formats][0] as Converted['format'];
  if (stubs.length > 0) {
    await readBodyFiles(bundle, stubs, stubFiles.map(dirOf));
    const wm = convertWireMock({ mappings: stubs });
    // pointers of the merged list → the file each stub came from
    const local = (p: string) => p.replace(/^\/mappings\/(\d+)/, (_m, i) => `${stubFiles[Number(i)]}#/mappings/${i}`);
    for (const w of wm.warnings) w.pointer = local(w.pointer);
    for (const e of wm.endpoints) for (const r of e.rules) r.pointer = local(r.pointer);
    for (const e of wm.endpoints) e.pointer = local(e.pointer);
    merge(out, wm, null);
  }
  return out;
}
