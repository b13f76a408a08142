/**
 * Format detection and conversion of an uploaded document (docs/interop.md): OpenAPI, Swagger, a
 * Mockyard export, HAR, Postman, Mockoon or WireMock → `Converted`. The OpenAPI family is validated
 * and dereferenced in a worker (interop/parser-pool.ts); the other formats are plain data walks.
 */

import { AppError, validationError } from '../domain/errors.js';
import { compileValidator, type ErrorDetail } from '../domain/validator.js';
import { loadFaker } from '../runtime/faker.js';
import { type ExportDocumentInput, ExportDocumentSchema, exportToDrafts } from './export.js';
import { convertHar, isHar } from './har.js';
import { convertMockoon, isMockoon } from './mockoon.js';
import { planImport } from './openapi-import.js';
import { convertPostman, isPostman } from './postman.js';
import { type Converted, emptyConverted, type ImportFormat, isObject, type Json, pointerOf } from './types.js';
import { convertWireMock, isWireMock } from './wiremock.js';

/** The format of a parsed document, or null. */
export function detectFormat(doc: unknown): ImportFormat | null {
  if (Array.isArray(doc)) return doc.length > 0 && isWireMock({ mappings: doc }) ? 'wiremock' : null;
  if (!isObject(doc)) return null;
  if (doc.mockyard !== undefined && Array.isArray(doc.endpoints)) return 'mockyard';
  if (typeof doc.openapi === 'string') return 'openapi';
  if (doc.swagger !== undefined) return 'swagger';
  if (isHar(doc)) return 'har';
  if (isPostman(doc)) return 'postman';
  if (isMockoon(doc)) return 'mockoon';
  if (isWireMock(doc)) return 'wiremock';
  return null;
}

const notA = (format: string) =>
  validationError([{ path: '/', message: `the document is not a ${format} document` }], `Not a ${format} document`);

/** Validates and dereferences an OpenAPI / Swagger document (in a worker: the pool, or this thread). */
export type OpenApiLoader = (doc: unknown) => Promise<{ doc: Json; swagger: boolean }>;

async function fromOpenApi(doc: unknown, load: OpenApiLoader): Promise<Converted> {
  const loaded = await load(doc);
  await loadFaker(); // realistic example values (docs/stateful-mocks.md); loaded once, on the first import
  const plan = planImport(loaded.doc);
  const out = emptyConverted(loaded.swagger ? 'swagger' : 'openapi');
  const info = loaded.doc.info;
  if (isObject(info) && typeof info.title === 'string' && info.title.trim() !== '') out.name = info.title;
  for (const d of plan.endpoints)
    out.endpoints.push({
      method: d.method,
      path: d.path,
      statusCode: d.statusCode,
      responseBody: d.responseBody,
      contentType: d.contentType,
      rules: [],
      pointer: pointerOf('paths', d.sourcePath, d.method.toLowerCase()),
    });
  for (const s of plan.skipped) {
    out.skipped.push(s);
    out.warnings.push({ pointer: pointerOf('paths', s.path, s.method.toLowerCase()), message: s.reason });
  }
  return out;
}

let exportCheck: ((v: unknown) => ErrorDetail[] | null) | null = null;
const checkExport = (doc: unknown) => {
  exportCheck ??= compileValidator(ExportDocumentSchema);
  return exportCheck(doc);
};

function fromExport(doc: unknown): Converted {
  // the validator the API's POST /api/projects/import uses for the same schema
  const problems = checkExport(doc);
  if (problems !== null) throw validationError(problems, 'The Mockyard export document is not valid');
  return exportToDrafts(doc as ExportDocumentInput);
}

/** `doc` as `format` (detected when absent: `400 unknown_format` when nothing fits). */
export async function convertDocument(
  doc: unknown,
  format: ImportFormat | null,
  load: OpenApiLoader,
): Promise<Converted> {
  const f = format ?? detectFormat(doc);
  if (f === null) {
    throw new AppError('unknown_format', undefined, [
      {
        path: '/',
        message:
          'recognised: OpenAPI ("openapi"), Swagger ("swagger": "2.0"), a Mockyard export ("mockyard"), HAR ("log.entries"), Postman ("info.schema"), Mockoon ("routes" and "lastMigration"), WireMock ("mappings", or "request" and "response")',
      },
    ]);
  }
  switch (f) {
    case 'openapi':
    case 'swagger':
      return fromOpenApi(doc, load);
    case 'mockyard':
      return fromExport(doc);
    case 'wiremock':
      if (Array.isArray(doc) && isWireMock({ mappings: doc })) return convertWireMock({ mappings: doc });
      if (!isWireMock(doc)) throw notA('WireMock');
      return convertWireMock(doc as Json);
    case 'mockoon':
      if (!isMockoon(doc)) throw notA('Mockoon environment');
      return convertMockoon(doc as Json);
    case 'postman':
      if (!isPostman(doc)) throw notA('Postman collection');
      return convertPostman(doc as Json);
    case 'har':
      if (!isHar(doc)) throw notA('HAR');
      return convertHar(doc as Json);
    case 'graphql':
      // a schema is imported by POST …/import/graphql (docs/graphql.md), not as a mock document
      throw notA('mock document (send a GraphQL schema to /import/graphql)');
  }
}
