/**
 * OpenAPI 3.0 / 3.1 and Swagger 2.0 → endpoint drafts (docs/interop.md). Three steps:
 * 1. `loadOpenApiDocument` checks the version, validates the document with @readme/openapi-parser,
 *    converts Swagger 2.0 to OpenAPI 3.0 (@scalar/openapi-upgrader) and dereferences its internal
 *    `$ref`s, in a worker thread (parser-pool.ts). External references (files, URLs) are never
 *    resolved — an import must not read the server's disk or reach the network: the first one is
 *    named in a 400.
 * 2. `planImport` (pure) turns every path + method into an endpoint draft: `{param}` → `:param`, the
 *    status and body of the first 2xx response (its `example`, else the first of its `examples`, else a
 *    value generated from its schema) and its content type (application/json preferred). Operations that
 *    cannot become an endpoint are listed with a reason instead.
 * 3. src/interop/apply.ts checks collisions and limits and writes the drafts.
 */
import { createRequire } from 'node:module';
import { type ErrorDetail, validationError } from '../domain/errors.js';
import { type HttpMethod, METHODS } from '../domain/model.js';
import { routeKey, validatePattern } from '../domain/paths.js';
import { exampleFromSchema } from './openapi-example.js';
import type { LoadAnswer } from './openapi-load.js';
import { ParserPool, type ParserPoolOptions } from './parser-pool.js';

export { exampleFromSchema } from './openapi-example.js';

import { LIMITS } from '../domain/schemas.js';

type Json = Record<string, unknown>;

export interface EndpointDraft {
  method: HttpMethod;
  /** the Mockyard pattern (`/pets/:id`) */
  path: string;
  routeKey: string;
  statusCode: number;
  responseBody: string;
  contentType: string;
  /** the path as written in the document (`/pets/{id}`) */
  sourcePath: string;
}

export interface SkippedOperation {
  method: string;
  /** the path as written in the document */
  path: string;
  reason: string;
}

export interface ImportPlan {
  endpoints: EndpointDraft[];
  skipped: SkippedOperation[];
}

/** Path item keys that are operations, in the order the specification lists them. */
const OPERATION_KEYS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

// ------------------------------------------------------------------------------------------------
// parsing and validation

let parseYamlText: typeof import('yaml').parse | null = null;
/** The YAML parser, loaded on the first YAML import (kept out of memory until one comes). */
function yamlParser(): typeof import('yaml').parse {
  parseYamlText ??= (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse;
  return parseYamlText;
}

/** YAML text → data (YAML 1.2 core schema: plain data only, aliases capped). */
export function parseYaml(text: string): unknown {
  try {
    return yamlParser()(text, { maxAliasCount: 100, uniqueKeys: true, prettyErrors: true });
  } catch (e) {
    const message = e instanceof Error ? e.message.split('\n')[0] : 'is not valid YAML';
    throw validationError([{ path: '/', message: `the body is not valid YAML: ${message}` }]);
  }
}

/** A validator error ("REQUIRED must have … \n\n > 3 | "info": {") → one short detail line. */
function detailOf(message: string): ErrorDetail {
  const lines = message.split('\n');
  const first = lines[0].trim();
  const near = lines.find((l) => /^>\s*\d+\s*\|/.test(l));
  const where = near ? near.replace(/^>\s*\d+\s*\|\s*/, '').trim() : '';
  return { path: '/', message: where ? `${first} (near: ${where.slice(0, 120)})` : first };
}

let pool: ParserPool | null = null;

/** The pool of import workers (created on first use). */
export function importPool(): ParserPool {
  pool ??= new ParserPool();
  return pool;
}

/** Sets the parser pool's time budget (the server's MOCKYARD_IMPORT_TIMEOUT_MS) before the first import. */
export function configureParser(opts: ParserPoolOptions): void {
  void pool?.close();
  pool = new ParserPool(opts);
}

/** Throws the 400 of a body that is not an OpenAPI 3.0 / 3.1 or Swagger 2.0 document. */
export function checkOpenApiVersion(input: unknown): asserts input is Json {
  if (!isObject(input)) throw validationError([{ path: '/', message: 'the body must be an OpenAPI document object' }]);
  const version = input.openapi ?? input.swagger;
  const known =
    typeof version === 'string' &&
    (/^3\.[01]\.\d+/.test(version) || (input.openapi === undefined && version === '2.0'));
  if (!known) {
    const at = input.openapi === undefined && input.swagger !== undefined ? '/swagger' : '/openapi';
    throw validationError([{ path: at, message: 'openapi must be a 3.0.x or 3.1.x version string, or swagger "2.0"' }]);
  }
}

/** A loader's answer as the document, or the 400 that names its problems or its first external `$ref`. */
export function loadedOrThrow(answer: LoadAnswer): { doc: Json; swagger: boolean } {
  if (answer.ok) return { doc: answer.doc, swagger: answer.swagger };
  if (answer.external) {
    const { ref, at } = answer.external;
    const message = `the external reference ${JSON.stringify(ref)} cannot be resolved: an import reads no files or URLs; bundle the description into one document first (e.g. npx @redocly/cli bundle)`;
    throw validationError([{ path: at, message }], `Unresolved external reference ${JSON.stringify(ref)}`);
  }
  const details = answer.errors.slice(0, 20).map(detailOf);
  if (answer.more > 0) details.push({ path: '/', message: `and ${answer.more} more errors` });
  throw validationError(details, 'The OpenAPI document is not valid');
}

/**
 * Checks that `input` is an OpenAPI 3.0 / 3.1 or Swagger 2.0 document and answers it dereferenced,
 * Swagger converted to OpenAPI 3.0 (a copy: the input is not changed), from a worker of the pool.
 */
export async function loadOpenApiDocument(input: unknown, owner = ''): Promise<{ doc: Json; swagger: boolean }> {
  checkOpenApiVersion(input);
  return loadedOrThrow(await importPool().load(owner, input));
}

// ------------------------------------------------------------------------------------------------
// paths

const PARAM_IN_SEGMENT = /\{([^{}]*)\}/g;

/**
 * OpenAPI path template → Mockyard pattern. `{id}` → `:id`; characters a parameter name cannot hold
 * become `_`; a segment that mixes text and parameters (`{name}.{ext}`) becomes one parameter for the
 * whole segment (`:name_ext`), since a mock matches whole segments. Literal segments that would read
 * as a pattern (`:x`, `*`) are percent-encoded so they stay literal.
 */
export function toMockPath(oasPath: string): { path: string } | { error: string } {
  if (!oasPath.startsWith('/')) return { error: 'path must start with /' };
  const used = new Set<string>();
  const segments = oasPath
    .slice(1)
    .split('/')
    .map((seg) => {
      const names = [...seg.matchAll(PARAM_IN_SEGMENT)].map((m) => m[1].replace(/[^A-Za-z0-9_]/g, '_') || 'param');
      if (names.length === 0) {
        if (seg.startsWith(':')) return `%3A${seg.slice(1)}`;
        return seg.replaceAll('*', '%2A');
      }
      const base = names.join('_');
      let name = base;
      for (let i = 2; used.has(name); i++) name = `${base}${i}`;
      used.add(name);
      return `:${name}`;
    });
  const path = `/${segments.join('/')}`;
  const why = validatePattern(path);
  return why ? { error: why } : { path };
}

// ------------------------------------------------------------------------------------------------
// responses

const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+*-]+(\s*;\s*[^\r\n\0]*)?$/;
const isJsonType = (ct: string) => /^application\/(?:[\w.+-]+\+)?json(?:\s*;|$)/i.test(ct) || /\/json\b/i.test(ct);
const NO_BODY = new Set([204, 205, 304]);

/** The content type to answer with, from a response's `content` keys. */
function pickMediaType(content: Json): string | null {
  const keys = Object.keys(content);
  if (keys.length === 0) return null;
  return (
    keys.find((k) => k.toLowerCase() === 'application/json') ??
    keys.find((k) => isJsonType(k)) ??
    keys.find((k) => !k.includes('*')) ??
    keys[0]
  );
}

function concreteContentType(key: string): string {
  if (!key.includes('*')) return key;
  const [type] = key.split('/');
  if (type === '*') return 'application/json';
  return type.toLowerCase() === 'text' ? 'text/plain' : 'application/octet-stream';
}

/** The first 2xx response (lowest code, then `2XX`), else `default`, else the first one given. */
function pickResponse(responses: Json): { status: number; response: Json } | null {
  const keys = Object.keys(responses);
  const codes = keys.filter((k) => /^2\d\d$/.test(k)).sort();
  let key: string | undefined = codes[0] ?? keys.find((k) => /^2xx$/i.test(k));
  let status = key === undefined ? 200 : /^\d{3}$/.test(key) ? Number(key) : 200;
  if (key === undefined) {
    key = keys.includes('default') ? 'default' : keys.find((k) => /^[1-5](\d\d|XX)$/i.test(k));
    if (key === undefined) return null;
    status = /^\d{3}$/.test(key) ? Number(key) : key === 'default' ? 200 : Number(key[0]) * 100;
  }
  const response = responses[key];
  return isObject(response) ? { status, response } : null;
}

function mediaExample(media: Json): unknown {
  if (media.example !== undefined) return media.example;
  if (isObject(media.examples)) {
    for (const ex of Object.values(media.examples)) if (isObject(ex) && ex.value !== undefined) return ex.value;
  }
  if (media.schema !== undefined) return exampleFromSchema(media.schema);
  return undefined;
}

function serialize(value: unknown, contentType: string): string {
  if (value === undefined) return '';
  if (typeof value === 'string') {
    if (!isJsonType(contentType)) return value;
    const t = value.trim();
    return t.startsWith('{') || t.startsWith('[') ? value : JSON.stringify(value);
  }
  if (!isJsonType(contentType) && value === null) return '';
  if (!isJsonType(contentType) && typeof value !== 'object') return String(value);
  return JSON.stringify(value, null, 2) ?? '';
}

/** The default answer of one operation, or why there is none. */
function answerOf(operation: Json): Omit<EndpointDraft, 'method' | 'path' | 'routeKey' | 'sourcePath'> | string {
  const responses = isObject(operation.responses) ? operation.responses : {};
  const picked = pickResponse(responses);
  if (!picked) return 'the operation has no responses';
  const { status, response } = picked;
  const content = isObject(response.content) ? response.content : {};
  const key = pickMediaType(content);
  // a response with no content declares no content type (docs/interop.md): the answer has neither
  const contentType = key ? concreteContentType(key) : '';
  if (key && (!MEDIA_TYPE.test(contentType) || contentType.length > LIMITS.contentTypeLength)) {
    return `the media type ${JSON.stringify(key)} cannot be a Content-Type`;
  }
  let body = '';
  if (key && !NO_BODY.has(status) && status >= 200) {
    const media = content[key];
    try {
      body = serialize(isObject(media) ? mediaExample(media) : undefined, contentType);
    } catch {
      return 'the example cannot be serialized (circular value)';
    }
  }
  if (body.length > LIMITS.bodyLength) return `the example is longer than ${LIMITS.bodyLength} characters`;
  // an empty answer is not JSON (nor anything else): it goes out without a content type
  return { statusCode: status, responseBody: body, contentType: body === '' ? '' : contentType };
}

/**
 * Endpoint drafts for every operation of a dereferenced document, in document order. Two
 * operations that land on one route (`/a/{x}` and `/a/{y}`) keep the first; the others are skipped.
 */
export function planImport(doc: Json): ImportPlan {
  const endpoints: EndpointDraft[] = [];
  const skipped: SkippedOperation[] = [];
  const seen = new Map<string, string>();
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [sourcePath, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    const converted = toMockPath(sourcePath);
    for (const op of OPERATION_KEYS) {
      const operation = item[op];
      if (!isObject(operation)) continue;
      const method = op.toUpperCase();
      const skip = (reason: string) => skipped.push({ method, path: sourcePath, reason });
      if (!(METHODS as readonly string[]).includes(method)) {
        skip(`method ${method} cannot be mocked`);
        continue;
      }
      if ('error' in converted) {
        skip(converted.error);
        continue;
      }
      const key = `${method} ${routeKey(converted.path)}`;
      const first = seen.get(key);
      if (first !== undefined) {
        skip(`same route as ${first}`);
        continue;
      }
      const answer = answerOf(operation);
      if (typeof answer === 'string') {
        skip(answer);
        continue;
      }
      seen.set(key, `${method} ${sourcePath}`);
      endpoints.push({
        method: method as HttpMethod,
        path: converted.path,
        routeKey: routeKey(converted.path),
        sourcePath,
        ...answer,
      });
    }
  }
  return { endpoints, skipped };
}
