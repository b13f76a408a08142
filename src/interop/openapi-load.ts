/**
 * Validating, converting and dereferencing an API description, in the thread that calls it — the
 * import worker (interop/import-worker.ts); the main thread never runs this. Swagger 2.0 is
 * converted to OpenAPI 3.0 by @scalar/openapi-upgrader; an external `$ref` (a file or a URL) is
 * never followed: the first one is named instead.
 */
import { dereference, validate } from '@readme/openapi-parser';
import { resolveExampleRefs } from './openapi-example-refs.js';

type Json = Record<string, unknown>;

export type LoadAnswer =
  | { ok: true; doc: Json; swagger: boolean }
  | { ok: false; errors: string[]; more: number; external?: { ref: string; at: string } };

const esc = (k: string) => k.replaceAll('~', '~0').replaceAll('/', '~1');

/** The first `$ref` that points outside the document, depth first, with its JSON pointer. */
export function externalRef(doc: unknown): { ref: string; at: string } | null {
  const stack: [unknown, string][] = [[doc, '']];
  while (stack.length > 0) {
    const [v, at] = stack.pop() as [unknown, string];
    if (v === null || typeof v !== 'object') continue;
    const ref = (v as Json).$ref;
    if (!Array.isArray(v) && typeof ref === 'string' && !ref.startsWith('#')) return { ref, at: `${at}/$ref` };
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) stack.push([(v as Json)[keys[i]], `${at}/${esc(keys[i])}`]);
  }
  return null;
}

let upgrade: ((doc: Json, to: '3.0') => Json) | null = null;

export async function loadHere(doc: Json, timeoutMs: number): Promise<LoadAnswer> {
  const external = externalRef(doc);
  if (external) return { ok: false, external, errors: [], more: 0 };
  const options = { resolve: { external: false, file: false }, timeoutMs } as Parameters<typeof validate>[1];
  const result = await validate(structuredClone(doc) as never, options);
  if (!result.valid) {
    return { ok: false, errors: result.errors.map((e) => String(e.message)), more: result.additionalErrors };
  }
  let source = doc;
  let swagger = false;
  if (typeof doc.swagger === 'string') {
    upgrade ??= (await import('@scalar/openapi-upgrader')).upgrade as unknown as (d: Json, to: '3.0') => Json;
    source = upgrade(doc, '3.0');
    swagger = true;
  }
  const deref = (await dereference(resolveExampleRefs(source) as never, options as never)) as unknown as Json;
  return { ok: true, doc: deref, swagger };
}
