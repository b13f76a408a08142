/**
 * The shape every importer converts to (docs/interop.md): endpoints with their rules, collections and
 * project storage, plus a warning with a JSON pointer for each construct of the source document that
 * was not translated or only approximately. `apply.ts` writes a `Converted` into a project.
 */

import type { ImportFormat } from '../domain/constants.js';
import type { ValidationModes } from '../domain/contract.js';
import type { GraphqlConfig } from '../domain/graphql.js';
import type { DataBinding, HttpMethod, ImportWarning, Skipped, Step } from '../domain/model.js';
import type { RuleInput } from '../domain/validate.js';

export { IMPORT_FORMATS, type ImportFormat } from '../domain/constants.js';
/** Formats with their own route, `POST /api/projects/:id/import/<format>`. */
export const FOREIGN_FORMATS = ['wiremock', 'mockoon', 'postman', 'har'] as const;
export type ForeignFormat = (typeof FOREIGN_FORMATS)[number];

export type { ImportWarning, Skipped } from '../domain/model.js';

export interface DraftRule extends RuleInput {
  /** where in the source document it came from */
  pointer: string;
}

export interface DraftEndpoint {
  method: HttpMethod;
  path: string;
  statusCode: number;
  responseBody: string;
  contentType: string;
  data?: DataBinding;
  /** headers of the default answer */
  headers?: Record<string, string>;
  /** a WebSocket endpoint's channels (docs/websocket.md) */
  channels?: string[];
  /** a GraphQL endpoint's schema and bindings (docs/graphql.md) */
  graphql?: GraphqlConfig | null;
  /** the endpoint's contract validation (docs/contract.md) */
  validation?: ValidationModes | null;
  rules: DraftRule[];
  /** stored variables of the endpoint (a Mockyard export's storage), and where they were */
  storage?: [string, string][];
  storageAt?: string;
  pointer: string;
}

export interface Converted {
  format: ImportFormat;
  /** a name for a project made from the document (serve --file, the CLI) */
  name?: string;
  /** where unmatched requests go (Mockoon's proxy mode, a Mockyard export) */
  fallbackUrl?: string | null;
  /** the project's config variables (a Mockyard export) */
  config?: Record<string, string>;
  /** the project's contract validation modes (a Mockyard export) */
  validation?: ValidationModes;
  /** the project's contract as JSON text (a Mockyard export; attached through an import worker) */
  contractJson?: string;
  endpoints: DraftEndpoint[];
  collections: { name: string; idField: string; seed: Record<string, unknown>[]; pointer: string }[];
  projectStorage: [string, string][];
  warnings: ImportWarning[];
  skipped: Skipped[];
}

export type Json = Record<string, unknown>;

/** Headers of a captured answer (HAR, Postman) that belong to that hop, not to the mock's answer. */
export const CAPTURE_DROPPED_HEADERS = new Set([
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'date',
  'set-cookie',
  'strict-transport-security',
  'alt-svc',
]);
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON pointer from its reference tokens (RFC 6901 escaping). */
export const pointerOf = (...tokens: (string | number)[]): string =>
  tokens.map((t) => `/${String(t).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

export function emptyConverted(format: ImportFormat): Converted {
  return { format, endpoints: [], collections: [], projectStorage: [], warnings: [], skipped: [] };
}

/** A step with the defaults of docs/api.md "Rules". */
export function stepOf(s: Partial<Step> & { statusCode: number }): Step {
  return { body: '', headers: {}, delayMs: 0, delayMaxMs: 0, count: 1, ...s };
}

/** The first content type among `headers` (any letter case), removed from them. */
export function takeContentType(headers: Record<string, string>): string | undefined {
  for (const k of Object.keys(headers)) {
    if (k.toLowerCase() === 'content-type') {
      const v = headers[k];
      delete headers[k];
      return v;
    }
  }
  return undefined;
}

/** application/json when the text parses as JSON object or array, none for no body, else text/plain. */
export function sniffContentType(body: string): string {
  const t = body.trim();
  if (body === '') return '';
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      JSON.parse(t);
      return 'application/json';
    } catch {
      // a template or text that looks like JSON
      return t.includes('{{') ? 'application/json' : 'text/plain';
    }
  }
  return 'text/plain';
}
