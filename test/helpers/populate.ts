/**
 * A project with something in every table: an endpoint, a rule with a sequence and a
 * store_variable action, one mock hit (so a hit counter, a stored value and a request-log entry),
 * for cascade and tenant-isolation tests.
 */
import { expect } from 'vitest';
import { sleep, type TestClient } from './server.js';

export interface Populated {
  token: string;
  userId: string;
  pid: string;
  eid: string;
  rid: string;
}

export async function populate(c: TestClient, u?: { token: string; id: string }): Promise<Populated> {
  const user = u ?? (await c.user());
  const p = await c.project(user.token, 'populated');
  const e = await c.endpoint(user.token, p.id, { method: 'GET', path: '/items/:id', responseBody: 'default' });
  const r = await c.rule(user.token, p.id, e.id, {
    name: 'seq',
    response: { steps: [{ statusCode: 201, body: 'first' }, { statusCode: 202 }] },
    actions: [{ type: 'store_variable', name: 'last', value: '{{request.params.id}}' }],
  });
  const hit = await c.mock(p.id, 'GET', '/items/7');
  expect(hit.status).toBe(201);
  await waitForLog(c, user.token, p.id, 1);
  return { token: user.token, userId: user.id, pid: p.id, eid: e.id, rid: r.id };
}

/** Polls the request log until it holds at least `n` entries (bounded). */
// biome-ignore lint/suspicious/noExplicitAny: log entries are inspected freely
export async function waitForLog(c: TestClient, token: string, pid: string, n: number): Promise<any[]> {
  for (let i = 0; i < 100; i++) {
    const r = await c.api('GET', `/api/projects/${pid}/requests`, undefined, token);
    expect(r.status).toBe(200);
    if (r.json.length >= n) return r.json;
    await sleep(50);
  }
  throw new Error(`request log of ${pid} did not reach ${n} entries`);
}

/** Row counts of everything that belongs to a project, read straight from the database. */
export async function rowsOf(
  // biome-ignore lint/suspicious/noExplicitAny: the store's Kysely instance
  db: any,
  pid: string,
  eids: string[],
  rids: string[],
): Promise<Record<string, number>> {
  const count = async (table: string, col: string, values: string[]) => {
    if (values.length === 0) return 0;
    const r = await db.selectFrom(table).select(db.fn.countAll().as('n')).where(col, 'in', values).executeTakeFirst();
    return Number(r?.n ?? 0);
  };
  return {
    projects: await count('projects', 'id', [pid]),
    endpoints: await count('endpoints', 'project_id', [pid]),
    rules: await count('rules', 'project_id', [pid]),
    rule_hits: await count('rule_hits', 'rule_id', rids),
    storage: await count('storage', 'endpoint_id', eids),
    request_log: await count('request_log', 'project_id', [pid]),
  };
}
