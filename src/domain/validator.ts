/**
 * JSON Schema validation outside the HTTP edge, with the options the API's Fastify validator uses
 * (src/api/app.ts takes AJV_OPTIONS from here): an import checks a document against the same
 * TypeBox schema, the same way, as the route that takes it as a body does. Errors become the
 * API's `details` (`detailsOf`, also used by src/api/errors.ts for Fastify's validation errors).
 */
import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ACTION_TYPES } from './constants.js';

export interface ErrorDetail {
  path: string;
  message: string;
}

/** The options of the API's validator: no coercion, no defaults, every error, unions picked by a tag. */
export const AJV_OPTIONS = {
  coerceTypes: false,
  removeAdditional: false,
  allErrors: true,
  useDefaults: false,
  // actions are a union picked by `type` (src/domain/schemas.ts)
  discriminator: true,
} as const;

interface AjvError {
  instancePath?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  message?: string;
}

/**
 * Ajv's errors → details. A union (`response: Response | null`) makes Ajv report every branch;
 * the precise errors of the branch that was meant are kept, the generic `anyOf` summary and the
 * "must be null" of the other branch are dropped when anything more specific exists.
 */
export function detailsOf(all: readonly AjvError[]): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const seen = new Set<string>();
  const generic = (e: AjvError) => e.keyword === 'anyOf' || (e.keyword === 'type' && e.params?.type === 'null');
  const specific = all.filter((e) => !generic(e));
  const errors = specific.length > 0 ? specific : all;
  for (const e of errors) {
    let path = e.instancePath || '';
    let message = e.message ?? 'is not valid';
    if (e.keyword === 'required' && e.params?.missingProperty) {
      path = `${path}/${String(e.params.missingProperty)}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties' && e.params?.additionalProperty) {
      path = `${path}/${String(e.params.additionalProperty)}`;
      message = 'is not a known field';
    } else if (e.keyword === 'discriminator') {
      // a union picked by a tag (actions by `type`): the tag is missing or names no branch
      if (e.params?.error === 'tag' && all.some((x) => x.keyword === 'required')) continue;
      path = `${path}/${String(e.params?.tag ?? 'type')}`;
      message = `must be one of ${ACTION_TYPES.join(', ')}`;
    } else if (e.keyword === 'enum' && Array.isArray(e.params?.allowedValues)) {
      message = `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
    }
    const key = `${path}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path: path || '/', message: `${path.split('/').pop() || 'body'} ${message}` });
  }
  return out;
}

let ajv: Ajv | null = null;

/** A validator compiled once: null when `value` fits the schema, else the details (at most `max`). */
export function compileValidator(schema: TSchema, max = 20): (value: unknown) => ErrorDetail[] | null {
  if (ajv === null) {
    ajv = new Ajv({ ...AJV_OPTIONS, strict: false });
    const addFormats = addFormatsModule as unknown as (a: Ajv) => void;
    addFormats(ajv);
  }
  const check = ajv.compile(schema);
  return (value) => (check(value) ? null : detailsOf((check.errors ?? []) as ErrorObject[]).slice(0, max));
}
