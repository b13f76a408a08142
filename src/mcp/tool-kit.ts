/** What every MCP tool is made of: its shape, the common inputs, and the REST call it wraps. */
import { type TSchema, Type } from '@sinclair/typebox';
import type { ApiCaller } from './caller.js';
import { ToolError } from './tool-error.js';

export interface Tool {
  name: string;
  description: string;
  /** offered to read-only callers */
  read: boolean;
  input: TSchema;
  run(args: Record<string, unknown>, api: ApiCaller): Promise<Record<string, unknown>>;
}

export const id = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });
export const projectId = id('the project’s id (list_projects)');
export const endpointId = id('the endpoint’s id (list_endpoints)');
export const ruleId = id('the rule’s id (list_rules)');
export const session = Type.Optional(
  Type.String({ maxLength: 200, description: 'a mock session (X-Mockyard-Session)' }),
);
export const enc = encodeURIComponent;
export const str = (v: unknown) => enc(String(v));

/** Calls the API; its answer, or a ToolError with the API's code, message and details. */
export async function call(api: ApiCaller, method: string, path: string, body?: unknown, contentType?: string) {
  const r = await api.api(method, path, body, contentType);
  if (r.status >= 400) {
    const e = (r.json as { error?: { code: string; message: string; details?: unknown } } | undefined)?.error;
    throw new ToolError(e?.code ?? `http_${r.status}`, e?.message ?? `HTTP ${r.status}`, e?.details);
  }
  return r.json;
}

/** A structured result is an object: lists are `{items}`. */
export const wrap = (v: unknown): Record<string, unknown> =>
  Array.isArray(v)
    ? { items: v }
    : v !== null && typeof v === 'object'
      ? (v as Record<string, unknown>)
      : { value: v ?? null };
