/**
 * Mocks as code (docs/testing.md): a file, or a folder of files, in any import format or a Mockyard
 * export, JSON or YAML → one `Converted`. A folder is read recursively in path order (dot-folders,
 * node_modules and WireMock's __files skipped); the stubs of every WireMock file are read as one
 * mappings list, so stubs on one route in several files still become one endpoint. Anything that
 * cannot be read, parsed or recognised is a MockFileError naming the file.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../domain/errors.js';
import { routeKey } from '../domain/paths.js';
import { convertDocument, detectFormat } from '../interop/convert.js';
import { parseJsonLenient } from '../interop/json-comments.js';
import { loadOpenApiDocument, parseYaml } from '../interop/openapi-import.js';
import { type Converted, emptyConverted, isObject, type Json } from '../interop/types.js';
import { convertWireMock } from '../interop/wiremock.js';

export class MockFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'MockFileError';
  }
}

const EXTENSIONS = new Set(['.json', '.yaml', '.yml']);
/** Folders that hold no mappings (compared in lower case: WireMock users write `__Files` too). */
const SKIPPED_DIRS = new Set(['node_modules', '__files']);
/** The largest body file read for a stub (the body limit of a step). */
const BODY_FILE_BYTES = 512 * 1024;

async function listFiles(root: string): Promise<string[]> {
  let stat: import('node:fs').Stats;
  try {
    stat = await fs.stat(root);
  } catch (e) {
    throw new MockFileError(
      root,
      (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : String((e as Error).message),
    );
  }
  if (stat.isFile()) return [root];
  const out: string[] = [];
  const walk = async (dir: string) => {
    const entries = (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIPPED_DIRS.has(e.name.toLowerCase())) await walk(p);
      } else if (e.isFile() && EXTENSIONS.has(path.extname(e.name).toLowerCase())) out.push(p);
    }
  };
  await walk(root);
  if (out.length === 0) throw new MockFileError(root, 'the folder holds no .json, .yaml or .yml file');
  return out;
}

async function parseFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    throw new MockFileError(file, `cannot be read (${(e as Error).message})`);
  }
  const ext = path.extname(file).toLowerCase();
  if (ext === '.json') {
    try {
      return parseJsonLenient(text);
    } catch (e) {
      throw new MockFileError(file, `is not valid JSON: ${(e as Error).message}`);
    }
  }
  try {
    return parseYaml(text);
  } catch (e) {
    const detail = e instanceof AppError ? (e.details?.[0]?.message ?? e.message) : String(e);
    throw new MockFileError(file, detail);
  }
}

/** Merges `b` into `a`: a route or collection already in `a` keeps `a`'s, with a warning. */
function merge(a: Converted, b: Converted, file: string | null): void {
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
  a.name ??= b.name;
}

/** The mocks of `root` (a file or a folder) as one document. */
export async function loadMockFiles(root: string): Promise<Converted> {
  const files = await listFiles(root);
  const out = emptyConverted('mockyard');
  const stubs: Json[] = [];
  const stubFiles: string[] = [];
  for (const file of files) {
    const doc = await parseFile(file);
    const rel = path.relative(path.dirname(root), file) || path.basename(file);
    const format = detectFormat(doc);
    if (format === null)
      throw new MockFileError(
        file,
        'is none of the formats mockyard serves (OpenAPI, Swagger, WireMock, Mockoon, Postman, HAR, a Mockyard export)',
      );
    if (format === 'wiremock') {
      const list = Array.isArray(doc) ? doc : isObject(doc) && Array.isArray(doc.mappings) ? doc.mappings : [doc];
      for (const m of list as Json[]) {
        stubs.push(m);
        stubFiles.push(rel);
      }
      continue;
    }
    try {
      merge(out, await convertDocument(doc, format, (d) => loadOpenApiDocument(d, 'files')), rel);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      const first = e.details?.[0];
      throw new MockFileError(file, first ? `${e.message} (${first.path}: ${first.message})` : e.message);
    }
  }
  if (stubs.length > 0) {
    await readBodyFiles(root, stubs);
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

/**
 * WireMock's `__files` folder for a mappings root: beside the mappings (`<root>/__files`) or, when the
 * root is the mappings folder itself, beside it (`<root>/../__files`); any letter case.
 */
async function filesFolder(root: string): Promise<string | null> {
  const base = (await fs.stat(root)).isFile() ? path.dirname(root) : root;
  for (const dir of [base, path.dirname(base)]) {
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      continue;
    }
    const found = names.find((n) => n.toLowerCase() === '__files');
    if (found) return fs.realpath(path.join(dir, found));
  }
  return null;
}

/**
 * A stub's `response.bodyFileName` read from `__files` into its `body` (WireMock serves that file as
 * the body). Never outside the folder: a name that resolves elsewhere (`..`, an absolute path, a
 * symbolic link out) is left unread, and the importer's warning says the body is empty.
 */
async function readBodyFiles(root: string, stubs: Json[]): Promise<void> {
  if (!stubs.some((s) => isObject(s.response) && typeof s.response.bodyFileName === 'string')) return;
  const folder = await filesFolder(root);
  if (folder === null) return;
  for (const [i, stub] of stubs.entries()) {
    const res = isObject(stub.response) ? stub.response : null;
    if (!res || typeof res.bodyFileName !== 'string' || res.body !== undefined || res.jsonBody !== undefined) continue;
    let real: string;
    try {
      real = await fs.realpath(path.resolve(folder, res.bodyFileName));
    } catch {
      continue; // missing: the warning of the importer stands
    }
    if (!real.startsWith(`${folder}${path.sep}`)) continue;
    const stat = await fs.stat(real);
    if (!stat.isFile() || stat.size > BODY_FILE_BYTES) continue;
    const { bodyFileName: _read, ...rest } = res;
    stubs[i] = { ...stub, response: { ...rest, body: await fs.readFile(real, 'utf8') } };
  }
}
