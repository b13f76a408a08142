/**
 * Contract validation's shapes (docs/contract.md): the modes of a project and an endpoint, and a
 * violation as the answer, the log and the inspector show it.
 */
import { Type } from '@sinclair/typebox';
import { type ErrorDetail, validationError } from './errors.js';

export const REQUEST_MODES = ['off', 'warn', 'enforce'] as const;
export type RequestMode = (typeof REQUEST_MODES)[number];
export type ResponseMode = 'off' | 'warn';

export interface ValidationModes {
  requests: RequestMode;
  responses: ResponseMode;
  /** the status of an enforced answer */
  status: 400 | 422;
}

export const DEFAULT_MODES: ValidationModes = { requests: 'off', responses: 'off', status: 400 };

export const sameModes = (a: ValidationModes, b: ValidationModes): boolean =>
  a.requests === b.requests && a.responses === b.responses && a.status === b.status;

export const VIOLATION_PLACES = [
  'path',
  'query',
  'header',
  'cookie',
  'body',
  'security',
  'operation',
  'status',
] as const;

export const ViolationRecord = Type.Object({
  in: Type.Union(VIOLATION_PLACES.map((p) => Type.Literal(p))),
  name: Type.Optional(Type.String()),
  pointer: Type.Optional(Type.String()),
  message: Type.String(),
  keyword: Type.Optional(Type.String()),
});

export interface Violation {
  in: (typeof VIOLATION_PLACES)[number];
  name?: string;
  pointer?: string;
  message: string;
  keyword?: string;
}

export const ValidationModesSchema = Type.Object(
  {
    requests: Type.Optional(Type.Union(REQUEST_MODES.map((m) => Type.Literal(m)))),
    responses: Type.Optional(Type.Union([Type.Literal('off'), Type.Literal('warn')])),
    status: Type.Optional(Type.Union([Type.Literal(400), Type.Literal(422)])),
  },
  { additionalProperties: false, description: 'contract validation (docs/contract.md)' },
);

/** Modes from a body (missing fields keep `base`'s); a 400 names what is wrong. */
export function validationModes(raw: unknown, at: string, base: ValidationModes = DEFAULT_MODES): ValidationModes {
  const problems: ErrorDetail[] = [];
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw validationError([{ path: at, message: 'validation must be an object' }]);
  const v = raw as Record<string, unknown>;
  const out = { ...base };
  if (v.requests !== undefined) {
    if (!(REQUEST_MODES as readonly unknown[]).includes(v.requests))
      problems.push({ path: `${at}/requests`, message: 'requests is off, warn or enforce' });
    else out.requests = v.requests as RequestMode;
  }
  if (v.responses !== undefined) {
    if (v.responses !== 'off' && v.responses !== 'warn')
      problems.push({ path: `${at}/responses`, message: 'responses is off or warn' });
    else out.responses = v.responses;
  }
  if (v.status !== undefined) {
    if (v.status !== 400 && v.status !== 422) problems.push({ path: `${at}/status`, message: 'status is 400 or 422' });
    else out.status = v.status;
  }
  for (const k of Object.keys(v))
    if (!['requests', 'responses', 'status'].includes(k))
      problems.push({ path: `${at}/${k}`, message: `unknown field ${k}` });
  if (problems.length > 0) throw validationError(problems);
  return out;
}

/** The request mode a mock request asks for with `X-Mockyard-Validate`, or null. */
export function headerMode(v: string | string[] | undefined): RequestMode | null {
  const s = (Array.isArray(v) ? v[0] : v)?.trim().toLowerCase();
  return s !== undefined && (REQUEST_MODES as readonly string[]).includes(s) ? (s as RequestMode) : null;
}
