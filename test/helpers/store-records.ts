/**
 * Records and helpers of the Store's own tests (src/store/store*.test.ts): an endpoint and a rule as
 * the validators make them, log entries, the AppError code a call rejects with, per-suite owners, and a
 * project with a collection.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import type { RequestLogEntry } from '../../src/domain/model.js';
import type { EndpointInput as NewEndpoint, RuleInput as RuleFields } from '../../src/domain/validate.js';
import type { CollectionRef } from '../../src/store/hot/collections.js';
import type { Store } from '../../src/store/index.js';

export const hash = () => `h-${randomBytes(8).toString('hex')}`;
export const email = () => `s-${randomBytes(5).toString('hex')}@Example.test`;

export const ep = (method: NewEndpoint['method'], path: string, extra: Partial<NewEndpoint> = {}): NewEndpoint => ({
  method,
  path,
  routeKey: path.replace(/\/+$/, '').replace(/:[A-Za-z0-9_]+/g, ':') || '/',
  statusCode: 200,
  responseBody: '',
  contentType: 'application/json',
  data: null,
  headers: {},
  ...extra,
  validation: extra.validation ?? null,
  channels: extra.channels ?? [],
  graphql: extra.graphql ?? null,
});

export const rule = (name: string, extra: Partial<RuleFields> = {}): RuleFields => ({
  name,
  priority: 0,
  active: true,
  conditions: [],
  response: null,
  actions: [],
  ...extra,
});

export function logEntry(n: number): RequestLogEntry {
  return {
    id: `e${n}-${randomBytes(4).toString('hex')}`,
    at: new Date(Date.now() + n).toISOString(),
    method: 'GET',
    path: `/n/${n}`,
    query: '',
    headers: {},
    body: '',
    endpointId: null,
    ruleId: null,
    statusCode: 200,
    durationMs: 1,
    actions: [],
    rules: [],
  };
}

/** The AppError code a promise rejects with. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return (e as AppError).code;
  }
  throw new Error('expected a rejection');
}

/** Owners, projects and row counts on the suite's store (read when called: the store opens in beforeAll). */
export function storeHelpers(current: () => Store) {
  const user = () => current().users.create(email(), hash());
  /** an owner with a project and an endpoint */
  async function owned(path = '/x') {
    const store = current();
    const u = await user();
    const p = await store.projects.create(u.id, { name: 'p' });
    const e = await store.endpoints.create(u.id, p.id, ep('GET', path));
    return { u, p, e };
  }
  const count = async (
    table: 'endpoints' | 'rules' | 'rule_hits' | 'storage' | 'request_log',
    col: string,
    v: string,
  ) =>
    Number(
      (
        await current()
          .db.selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          // biome-ignore lint/suspicious/noExplicitAny: a column of any of these tables
          .where(col as any, '=', v)
          .executeTakeFirst()
      )?.n ?? 0,
    );
  return { user, owned, count };
}

/** An owner, a project and its collection `items` of `seed` (id field `id`) in `store`. */
export async function itemsCollection(store: Store, seed: Record<string, unknown>[]) {
  const owner = (await store.users.create(email(), hash())).id;
  const projectId = (await store.projects.create(owner, { name: 'p' })).id;
  await store.collections.create(owner, projectId, 'items', { idField: 'id', seed });
  // a full copy of the seed in each session (as a seed with templates is copied), session `a`
  const ref: CollectionRef = { projectId, name: 'items', idField: 'id', seed, base: null, session: 'a' };
  return { owner, projectId, ref };
}
