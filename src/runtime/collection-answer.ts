/**
 * The answer of an endpoint bound to a collection when no rule answered (docs/stateful-mocks.md): list (with
 * `field=value` filters compared as text, `_sort=field|-field`, `_offset`, `_limit` and
 * `X-Total-Count`), get, create, replace, update, delete — on the request session's copy.
 */

import type { CollectionCommand, CollectionRef, CollectionResult } from '../domain/collections.js';
import { errorOf } from '../domain/errors.js';
import type { CompiledEndpoint, CompiledProject } from './compile.js';
import type { MockContext } from './context.js';
import type { HotState } from './ports.js';
import type { Deferred, StepSink, Steps } from './steps.js';

export interface CollectionAnswer {
  readonly status: number;
  readonly body: string;
  /** matches before offset and limit (list) */
  readonly total?: number;
}

type Item = Record<string, unknown>;
const PAGING = new Set(['_sort', '_offset', '_limit']);

const error = (
  code: 'not_found' | 'conflict' | 'invalid_body' | 'payload_too_large',
  status: number,
  message: string,
): CollectionAnswer => ({
  status,
  body: JSON.stringify(errorOf(code, message)),
});

/** A value as the filters compare it: strings as they are, anything else as JSON text. */
const asText = (v: unknown): string | undefined =>
  v === undefined ? undefined : typeof v === 'string' ? v : JSON.stringify(v);

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (a === undefined) return b === undefined ? 0 : 1;
  if (b === undefined) return -1;
  const x = asText(a) as string;
  const y = asText(b) as string;
  return x < y ? -1 : x > y ? 1 : 0;
}

const nonNegative = (s: string | undefined): number | null =>
  s !== undefined && /^\d{1,9}$/.test(s) ? Number(s) : null;

function list(raw: string[], query: Record<string, string>): CollectionAnswer {
  // a plain list is the stored JSON joined: nothing parsed or stringified again
  if (Object.keys(query).length === 0) return { status: 200, body: `[${raw.join(',')}]`, total: raw.length };
  let out = raw.map((d) => JSON.parse(d) as Item);
  for (const [field, value] of Object.entries(query)) {
    if (PAGING.has(field)) continue;
    out = out.filter((item) => Object.hasOwn(item, field) && asText(item[field]) === value);
  }
  const sort = query._sort;
  if (sort) {
    const desc = sort.startsWith('-');
    const field = desc ? sort.slice(1) : sort;
    const value = (item: Item) => (Object.hasOwn(item, field) ? item[field] : undefined);
    out = [...out].sort((a, b) => (desc ? -1 : 1) * compare(value(a), value(b)));
  }
  const total = out.length;
  const offset = nonNegative(query._offset) ?? 0;
  const limit = nonNegative(query._limit);
  out = out.slice(offset, limit === null ? undefined : offset + limit);
  return { status: 200, body: JSON.stringify(out), total };
}

/** The request body as a JSON object, or null (no body, not JSON, an array, a string, a number, null). */
function bodyObject(ctx: MockContext): Item | null {
  const doc = ctx.json();
  return doc.ok && doc.value !== null && typeof doc.value === 'object' && !Array.isArray(doc.value)
    ? (doc.value as Item)
    : null;
}

/** A collection command as the steps wait for it: handed to the store with the steps' sink, no promise. */
class CollectionWait implements Deferred<CollectionResult> {
  constructor(
    private readonly hot: HotState,
    private readonly ref: CollectionRef,
    private readonly cmd: CollectionCommand,
  ) {}
  into(sink: StepSink<CollectionResult>): void {
    this.hot.collectionInto(this.ref, this.cmd, sink);
  }
}

/** Runs the endpoint's collection operation for the request's session. */
export function* collectionAnswer(
  project: CompiledProject,
  ep: CompiledEndpoint,
  ctx: MockContext,
  session: string,
  hot: HotState,
): Steps<CollectionAnswer> {
  const data = ep.data;
  if (!data) throw new Error('not a collection endpoint');
  const def = project.collections.get(data.collection);
  if (!def) return error('not_found', 404, `The project has no collection ${data.collection}`);
  const ref = {
    projectId: project.id,
    name: data.collection,
    idField: def.idField,
    seed: () => def.render(ctx),
    base: def.base(),
    session,
  };
  const id = data.idParam === null ? '' : (ctx.req.params[data.idParam] ?? '');
  let cmd: CollectionCommand;
  switch (data.operation) {
    case 'list':
      cmd = { op: 'list' };
      break;
    case 'get':
      cmd = { op: 'get', id };
      break;
    case 'delete':
      cmd = { op: 'delete', id };
      break;
    default: {
      const item = bodyObject(ctx);
      if (item === null) return error('invalid_body', 400, 'The body must be a JSON object');
      cmd =
        data.operation === 'create'
          ? { op: 'create', item }
          : data.operation === 'replace'
            ? { op: 'replace', id, item }
            : { op: 'update', id, patch: item };
    }
  }
  const res = (yield new CollectionWait(hot, ref, cmd)) as CollectionResult;
  switch (res.kind) {
    case 'items':
      return list(res.raw, ctx.req.query);
    case 'item':
      return { status: res.created ? 201 : 200, body: res.raw ?? JSON.stringify(res.item) };
    case 'deleted':
      return { status: 204, body: '' };
    case 'conflict':
      return error('conflict', 409, `An item with this ${def.idField} already exists`);
    case 'missing':
      return error('not_found', 404, `No item with this ${def.idField}`);
    case 'too_large':
      return error('payload_too_large', 413, res.message);
    default:
      return { status: 200, body: JSON.stringify(res) };
  }
}
