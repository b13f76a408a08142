/** The context the helper table's examples render in (docs/templates.md): `POST /`, no body, a fixed clock. */
import type { EvalContext, RequestView } from '../types.js';
import { EXAMPLE_NOW } from './helper-types.js';

export function exampleContext(): EvalContext {
  const none = Object.create(null) as Record<string, string>;
  const req: RequestView = {
    method: 'POST',
    path: '/',
    rawQuery: '',
    query: none,
    headers: none,
    params: none,
    body: '',
    header: () => undefined,
    queryParam: () => undefined,
  };
  let uuids = 0;
  return {
    req,
    vars: new Map(),
    storage: new Map(),
    projectStorage: new Map(),
    rng: () => 0.5,
    now: () => EXAMPLE_NOW,
    uuid: () => `00000000-0000-4000-8000-${String(++uuids).padStart(12, '0')}`,
    json: () => ({ ok: false }),
  };
}
