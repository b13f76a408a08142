/**
 * The Store on its own (no HTTP), one test body for every database in DIALECTS: users and
 * sessions, owner filtering on every read and write, cascades, route-key conflicts, the rule plan
 * limit under concurrency, the atomic hot-path counters and storage updates (also across two Store
 * instances on one database, as two processes would be), the request log, and project versions.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import type { RequestLogEntry } from '../domain/model.js';
import { AppError } from '../errors.js';
import { type NewEndpoint, type RuleFields, Store } from './store.js';

const hash = () => `h-${randomBytes(8).toString('hex')}`;
const email = () => `s-${randomBytes(5).toString('hex')}@Example.test`;

const ep = (method: NewEndpoint['method'], path: string, extra: Partial<NewEndpoint> = {}): NewEndpoint => ({
  method,
  path,
  routeKey: path.replace(/\/+$/, '').replace(/:[A-Za-z0-9_]+/g, ':') || '/',
  statusCode: 200,
  responseBody: '',
  contentType: 'application/json',
  ...extra,
});

const rule = (name: string, extra: Partial<RuleFields> = {}): RuleFields => ({
  name,
  priority: 0,
  active: true,
  conditions: [],
  response: null,
  actions: [],
  ...extra,
});

function logEntry(n: number): RequestLogEntry {
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
async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return (e as AppError).code;
  }
  throw new Error('expected a rejection');
}

describe.each(DIALECTS)('Store on %s', (dialect) => {
  let db: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    db = await freshDatabase(dialect);
    store = await Store.open(db.url);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  const user = () => store.createUser(email(), hash());
  /** an owner with a project and an endpoint */
  async function owned(path = '/x') {
    const u = await user();
    const p = await store.createProject(u.id, { name: 'p' });
    const e = await store.createEndpoint(u.id, p.id, ep('GET', path));
    return { u, p, e };
  }
  const count = async (
    table: 'endpoints' | 'rules' | 'rule_hits' | 'storage' | 'request_log',
    col: string,
    v: string,
  ) =>
    Number(
      (
        await store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          // biome-ignore lint/suspicious/noExplicitAny: a column of any of these tables
          .where(col as any, '=', v)
          .executeTakeFirst()
      )?.n ?? 0,
    );

  it('opens an existing database again (migrations are idempotent)', async () => {
    const again = await Store.open(db.url);
    try {
      expect(await again.ping()).toBe(true);
    } finally {
      await again.close();
    }
  });

  describe('users', () => {
    it('creates a free user with the email in lower case, found in any case, never with the hash', async () => {
      const e = email();
      const h = hash();
      const u = await store.createUser(e, h);
      expect(u).toEqual({ id: u.id, email: e.toLowerCase(), plan: 'free', createdAt: u.createdAt });
      expect(await store.getUser(u.id)).toEqual(u);
      expect(JSON.stringify(await store.getUser(u.id))).not.toContain(h);
      const found = await store.findUserByEmail(e.toUpperCase());
      expect(found).toMatchObject({ id: u.id, passwordHash: h });
      expect(await store.getUserWithHash(u.id)).toMatchObject({ id: u.id, passwordHash: h });
      expect(await store.findUserByEmail(`x${e}`)).toBeNull();
      expect(await store.getUser('nobody')).toBeNull();
    });

    it('rejects a second user with the same email in any case (conflict)', async () => {
      const e = email();
      await store.createUser(e, hash());
      expect(await codeOf(store.createUser(e.toUpperCase(), hash()))).toBe('conflict');
      expect(await codeOf(store.createUser(e.toLowerCase(), hash()))).toBe('conflict');
    });

    it('lets exactly one of many concurrent registrations of one email through', async () => {
      const e = email();
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store.createUser(i % 2 ? e.toUpperCase() : e, hash())),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('conflict');
      }
    });

    it('sets the password and the plan', async () => {
      const u = await user();
      await store.setPassword(u.id, 'new-hash');
      expect((await store.getUserWithHash(u.id))?.passwordHash).toBe('new-hash');
      expect(await store.setPlan(u.id, 'business')).toMatchObject({ id: u.id, plan: 'business' });
      expect((await store.getUser(u.id))?.plan).toBe('business');
      expect(await store.setPlan('nobody', 'pro')).toBeNull();
    });
  });

  describe('sessions', () => {
    it('answers the user of an unexpired session, null once expired, deleted or unknown', async () => {
      const u = await user();
      const live = hash();
      const old = hash();
      await store.createSession(live, u.id, new Date(Date.now() + 60_000));
      await store.createSession(old, u.id, new Date(Date.now() - 1));
      expect(await store.sessionUser(live)).toEqual(await store.getUser(u.id));
      expect(await store.sessionUser(old)).toBeNull();
      expect(await store.sessionUser('unknown')).toBeNull();
      await store.deleteSession(live);
      expect(await store.sessionUser(live)).toBeNull();
    });

    it('deleteOtherSessions keeps the given one and leaves other users alone', async () => {
      const u = await user();
      const other = await user();
      const [keep, drop1, drop2, theirs] = [hash(), hash(), hash(), hash()];
      const later = new Date(Date.now() + 60_000);
      for (const t of [keep, drop1, drop2]) await store.createSession(t, u.id, later);
      await store.createSession(theirs, other.id, later);
      await store.deleteOtherSessions(u.id, keep);
      expect((await store.sessionUser(keep))?.id).toBe(u.id);
      expect(await store.sessionUser(drop1)).toBeNull();
      expect(await store.sessionUser(drop2)).toBeNull();
      expect((await store.sessionUser(theirs))?.id).toBe(other.id);
    });

    it('the session user reflects a plan change', async () => {
      const u = await user();
      const t = hash();
      await store.createSession(t, u.id, new Date(Date.now() + 60_000));
      await store.setPlan(u.id, 'pro');
      expect((await store.sessionUser(t))?.plan).toBe('pro');
    });
  });

  describe('projects', () => {
    it('lists only the owner’s projects, oldest first', async () => {
      const a = await user();
      const b = await user();
      const p1 = await store.createProject(a.id, { name: 'one' });
      await store.createProject(b.id, { name: 'theirs' });
      const p2 = await store.createProject(a.id, { name: 'two' });
      expect((await store.listProjects(a.id)).map((p) => p.id)).toEqual([p1.id, p2.id]);
      expect(await store.countProjects(a.id)).toBe(2);
      expect(await store.getProject(a.id, p1.id)).toEqual(p1);
    });

    it('another owner’s project is null / not_found on every method and stays unchanged', async () => {
      const a = await user();
      const b = await user();
      const p = await store.createProject(a.id, { name: 'mine' });
      expect(await store.getProject(b.id, p.id)).toBeNull();
      expect(await codeOf(store.requireProject(b.id, p.id))).toBe('not_found');
      expect(await codeOf(store.updateProject(b.id, p.id, { name: 'stolen' }))).toBe('not_found');
      expect(await codeOf(store.deleteProject(b.id, p.id))).toBe('not_found');
      expect(await codeOf(store.listEndpoints(b.id, p.id))).toBe('not_found');
      expect(await codeOf(store.createEndpoint(b.id, p.id, ep('GET', '/planted')))).toBe('not_found');
      expect(await codeOf(store.listLog(b.id, p.id, 10))).toBe('not_found');
      expect(await store.getProject(a.id, p.id)).toEqual(p);
      expect(await store.listEndpoints(a.id, p.id)).toEqual([]);
      expect(await store.listProjects(b.id)).toEqual([]);
    });

    it('updates the name and updatedAt; unknown ids are not_found', async () => {
      const a = await user();
      const p = await store.createProject(a.id, { name: 'before' });
      await new Promise((r) => setTimeout(r, 5));
      const up = await store.updateProject(a.id, p.id, { name: 'after' });
      expect(up).toMatchObject({ id: p.id, name: 'after', createdAt: p.createdAt });
      expect(Date.parse(up.updatedAt)).toBeGreaterThan(Date.parse(p.updatedAt));
      expect((await store.updateProject(a.id, p.id, {})).name).toBe('after');
      expect(await codeOf(store.updateProject(a.id, 'nope', { name: 'x' }))).toBe('not_found');
      expect(await codeOf(store.deleteProject(a.id, 'nope'))).toBe('not_found');
    });
  });

  describe('endpoints', () => {
    it('creates, lists oldest first, reads, updates and deletes', async () => {
      const { u, p, e } = await owned('/a');
      expect(e).toMatchObject({ projectId: p.id, method: 'GET', path: '/a', statusCode: 200 });
      const e2 = await store.createEndpoint(u.id, p.id, ep('POST', '/b', { statusCode: 201, responseBody: 'x' }));
      expect((await store.listEndpoints(u.id, p.id)).map((x) => x.id)).toEqual([e.id, e2.id]);
      expect(await store.getEndpoint(u.id, p.id, e2.id)).toEqual(e2);
      const up = await store.updateEndpoint(u.id, p.id, e2.id, ep('POST', '/c', { statusCode: 202 }));
      expect(up).toMatchObject({ id: e2.id, path: '/c', statusCode: 202, createdAt: e2.createdAt });
      await store.deleteEndpoint(u.id, p.id, e2.id);
      expect(await store.getEndpoint(u.id, p.id, e2.id)).toBeNull();
      expect(await store.countEndpoints(p.id)).toBe(1);
    });

    it('another owner’s endpoint, or one under another project, is null / not_found', async () => {
      const { u, p, e } = await owned();
      const b = await user();
      const otherP = await store.createProject(u.id, { name: 'other' });
      const bp = await store.createProject(b.id, { name: 'b' });
      expect(await store.getEndpoint(b.id, p.id, e.id)).toBeNull();
      expect(await store.getEndpoint(u.id, otherP.id, e.id)).toBeNull();
      expect(await store.getEndpoint(b.id, bp.id, e.id)).toBeNull();
      expect(await codeOf(store.updateEndpoint(b.id, p.id, e.id, ep('GET', '/stolen')))).toBe('not_found');
      expect(await codeOf(store.updateEndpoint(b.id, bp.id, e.id, ep('GET', '/stolen')))).toBe('not_found');
      expect(await codeOf(store.updateEndpoint(u.id, otherP.id, e.id, ep('GET', '/moved')))).toBe('not_found');
      expect(await codeOf(store.deleteEndpoint(b.id, p.id, e.id))).toBe('not_found');
      expect(await codeOf(store.deleteEndpoint(b.id, bp.id, e.id))).toBe('not_found');
      expect(await codeOf(store.getStorage(b.id, p.id, e.id))).toBe('not_found');
      expect(await codeOf(store.clearStorage(b.id, p.id, e.id))).toBe('not_found');
      expect(await codeOf(store.listRules(b.id, p.id, e.id))).toBe('not_found');
      expect(await codeOf(store.createRule(b.id, p.id, e.id, rule('x'), 3))).toBe('not_found');
      expect(await codeOf(store.createRule(b.id, bp.id, e.id, rule('x'), 3))).toBe('not_found');
      expect(await store.getEndpoint(u.id, p.id, e.id)).toEqual(e);
      expect(await store.countRules(e.id)).toBe(0);
    });

    it('a second endpoint with the same method and route key is a conflict, on create and update', async () => {
      const { u, p } = await owned('/users/:id');
      expect(await codeOf(store.createEndpoint(u.id, p.id, ep('GET', '/users/:id')))).toBe('conflict');
      expect(await codeOf(store.createEndpoint(u.id, p.id, ep('GET', '/users/:uid/')))).toBe('conflict');
      const post = await store.createEndpoint(u.id, p.id, ep('POST', '/users/:id'));
      expect(await codeOf(store.updateEndpoint(u.id, p.id, post.id, ep('GET', '/users/:x')))).toBe('conflict');
      expect((await store.getEndpoint(u.id, p.id, post.id))?.method).toBe('POST');
      // the same route in another project is fine
      const p2 = await store.createProject(u.id, { name: 'p2' });
      await store.createEndpoint(u.id, p2.id, ep('GET', '/users/:id'));
      expect(await store.countEndpoints(p.id)).toBe(2);
    });

    it('concurrent creates of one route: exactly one wins, the rest conflict', async () => {
      const u = await user();
      const p = await store.createProject(u.id, { name: 'race' });
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () => store.createEndpoint(u.id, p.id, ep('PUT', '/race'))),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('conflict');
      expect(await store.countEndpoints(p.id)).toBe(1);
    });
  });

  describe('rules', () => {
    it('lists by priority, then creation; reads, updates, resets and deletes', async () => {
      const { u, p, e } = await owned();
      const r1 = await store.createRule(u.id, p.id, e.id, rule('late', { priority: 5 }), 25);
      const r2 = await store.createRule(u.id, p.id, e.id, rule('first', { priority: -1 }), 25);
      const r3 = await store.createRule(u.id, p.id, e.id, rule('later', { priority: 5 }), 25);
      expect((await store.listRules(u.id, p.id, e.id)).map((r) => r.id)).toEqual([r2.id, r1.id, r3.id]);
      expect(await store.getRule(u.id, p.id, e.id, r1.id)).toMatchObject({ id: r1.id, name: 'late', hits: 0 });

      const steps = {
        mode: 'loop' as const,
        steps: [{ statusCode: 500, body: '', headers: {}, delayMs: 0, delayMaxMs: 0, count: 1 }],
      };
      const up = await store.updateRule(
        u.id,
        p.id,
        e.id,
        r1.id,
        rule('renamed', { active: false, response: steps }),
        false,
      );
      expect(up).toMatchObject({ id: r1.id, name: 'renamed', active: false, response: steps, priority: 0 });

      await store.hotHit(r1.id, '');
      await store.hotHit(r1.id, '');
      await store.hotHit(r1.id, 's1');
      expect((await store.getRule(u.id, p.id, e.id, r1.id))?.hits).toBe(2);
      expect((await store.getRule(u.id, p.id, e.id, r1.id, 's1'))?.hits).toBe(1);
      expect((await store.listRules(u.id, p.id, e.id)).find((r) => r.id === r1.id)?.hits).toBe(2);
      // reset of one session, then of every session
      expect((await store.resetRule(u.id, p.id, e.id, r1.id, 's1')).hits).toBe(0);
      expect((await store.getRule(u.id, p.id, e.id, r1.id))?.hits).toBe(2);
      expect((await store.resetRule(u.id, p.id, e.id, r1.id)).hits).toBe(0);
      // an update that changes the response resets the counter
      await store.hotHit(r1.id, '');
      expect((await store.updateRule(u.id, p.id, e.id, r1.id, rule('again'), true)).hits).toBe(0);

      await store.deleteRule(u.id, p.id, e.id, r2.id);
      expect(await store.getRule(u.id, p.id, e.id, r2.id)).toBeNull();
      expect(await store.countRules(e.id)).toBe(2);
    });

    it('another owner’s rule, or one under another endpoint, is null / not_found and unchanged', async () => {
      const { u, p, e } = await owned('/one');
      const e2 = await store.createEndpoint(u.id, p.id, ep('GET', '/two'));
      const r = await store.createRule(u.id, p.id, e.id, rule('mine'), 3);
      const b = await owned('/b');
      expect(await store.getRule(b.u.id, p.id, e.id, r.id)).toBeNull();
      expect(await store.getRule(b.u.id, b.p.id, b.e.id, r.id)).toBeNull();
      expect(await store.getRule(u.id, p.id, e2.id, r.id)).toBeNull();
      for (const [owner, pid, eid] of [
        [b.u.id, p.id, e.id],
        [b.u.id, b.p.id, b.e.id],
        [u.id, p.id, e2.id],
      ]) {
        expect(await codeOf(store.requireRule(owner, pid, eid, r.id))).toBe('not_found');
        expect(await codeOf(store.updateRule(owner, pid, eid, r.id, rule('stolen'), true))).toBe('not_found');
        expect(await codeOf(store.resetRule(owner, pid, eid, r.id))).toBe('not_found');
        expect(await codeOf(store.deleteRule(owner, pid, eid, r.id))).toBe('not_found');
      }
      expect(await store.getRule(u.id, p.id, e.id, r.id)).toEqual(r);
    });

    it('createRule refuses past the limit with plan_limit_exceeded', async () => {
      const { u, p, e } = await owned();
      for (let i = 0; i < 3; i++) await store.createRule(u.id, p.id, e.id, rule(`r${i}`), 3);
      expect(await codeOf(store.createRule(u.id, p.id, e.id, rule('r3'), 3))).toBe('plan_limit_exceeded');
      expect(await store.countRules(e.id)).toBe(3);
      // the limit is per endpoint, and a higher limit allows more
      await store.createRule(u.id, p.id, e.id, rule('r3'), 15);
      expect(await store.countRules(e.id)).toBe(4);
    });

    it('concurrent creates never pass the limit', async () => {
      const { u, p, e } = await owned();
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) => store.createRule(u.id, p.id, e.id, rule(`c${i}`), 5)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
      for (const r of results) {
        if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('plan_limit_exceeded');
      }
      expect(await store.countRules(e.id)).toBe(5);
    });

    // Several processes share one database only on PostgreSQL (CONTRACT §0); on SQLite the
    // second writer of an interleaved transaction gets SQLITE_BUSY, which is not this test's point.
    it.runIf(dialect === 'postgres')(
      'concurrent creates through two Store instances (two processes) never pass the limit',
      async () => {
        const other = await Store.open(db.url);
        try {
          const { u, p, e } = await owned();
          const results = await Promise.allSettled(
            Array.from({ length: 20 }, (_, i) =>
              (i % 2 ? other : store).createRule(u.id, p.id, e.id, rule(`c${i}`), 3),
            ),
          );
          expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
          for (const r of results) {
            if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('plan_limit_exceeded');
          }
          expect(await store.countRules(e.id)).toBe(3);
        } finally {
          await other.close();
        }
      },
    );
  });

  describe('cascades', () => {
    async function full() {
      const { u, p, e } = await owned();
      const r = await store.createRule(u.id, p.id, e.id, rule('r'), 3);
      await store.hotHit(r.id, '');
      await store.hotHit(r.id, 'session-a');
      await store.hotUpdateStorage(e.id, '', () => [['k', 'v']]);
      await store.appendLog([{ projectId: p.id, entry: logEntry(1) }]);
      return { u, p, e, r };
    }

    it('deleting a project removes its endpoints, rules, hit counters, storage and request log', async () => {
      const { u, p, e, r } = await full();
      const keep = await full();
      expect(await count('request_log', 'project_id', p.id)).toBe(1);
      await store.deleteProject(u.id, p.id);
      expect(await store.getProject(u.id, p.id)).toBeNull();
      expect(await count('endpoints', 'project_id', p.id)).toBe(0);
      expect(await count('rules', 'project_id', p.id)).toBe(0);
      expect(await count('rule_hits', 'rule_id', r.id)).toBe(0);
      expect(await count('storage', 'endpoint_id', e.id)).toBe(0);
      expect(await count('request_log', 'project_id', p.id)).toBe(0);
      expect(await store.loadProjectConfig(p.id)).toBeNull();
      // log entries of a deleted project are dropped, not written
      await store.appendLog([{ projectId: p.id, entry: logEntry(2) }]);
      expect(await count('request_log', 'project_id', p.id)).toBe(0);
      // the other project is whole
      expect(await count('rules', 'project_id', keep.p.id)).toBe(1);
      expect(await count('rule_hits', 'rule_id', keep.r.id)).toBe(2);
      expect(await count('storage', 'endpoint_id', keep.e.id)).toBe(1);
      expect(await count('request_log', 'project_id', keep.p.id)).toBe(1);
    });

    it('deleting an endpoint removes its rules, hit counters and storage', async () => {
      const { u, p, e, r } = await full();
      await store.deleteEndpoint(u.id, p.id, e.id);
      expect(await count('rules', 'endpoint_id', e.id)).toBe(0);
      expect(await count('rule_hits', 'rule_id', r.id)).toBe(0);
      expect(await count('storage', 'endpoint_id', e.id)).toBe(0);
      expect(await store.getProject(u.id, p.id)).not.toBeNull();
    });

    it('deleting a rule removes its hit counters', async () => {
      const { u, p, e, r } = await full();
      await store.deleteRule(u.id, p.id, e.id, r.id);
      expect(await count('rule_hits', 'rule_id', r.id)).toBe(0);
      expect(await count('storage', 'endpoint_id', e.id)).toBe(1);
    });
  });

  describe('hot path', () => {
    it('hotHit: 500 concurrent hits give exactly 1..500', async () => {
      const { u, p, e } = await owned();
      const r = await store.createRule(u.id, p.id, e.id, rule('hot'), 3);
      const got = await Promise.all(Array.from({ length: 500 }, () => store.hotHit(r.id, '')));
      expect([...got].sort((x, y) => x - y)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
      expect((await store.getRule(u.id, p.id, e.id, r.id))?.hits).toBe(500);
    });

    it('hotHit: hits of one turn are counted in the order they were asked; a missing rule fails alone', async () => {
      const { u, p, e } = await owned();
      const a = await store.createRule(u.id, p.id, e.id, rule('a'), 3);
      const b = await store.createRule(u.id, p.id, e.id, rule('b'), 3);
      await store.hotHit(a.id, '');
      // one event-loop turn: a, b and a rule that does not exist (a foreign-key failure)
      const asked = [a.id, b.id, a.id, 'no-such-rule', a.id, b.id].map((id) =>
        Promise.resolve(store.hotHit(id, '')).then(
          (n) => n,
          () => 'failed',
        ),
      );
      expect(await Promise.all(asked)).toEqual([2, 1, 3, 'failed', 4, 2]);
      expect((await store.getRule(u.id, p.id, e.id, a.id))?.hits).toBe(4);
    });

    it('hotHit counts per session and across two Store instances exactly', async () => {
      const other = await Store.open(db.url);
      try {
        const { u, p, e } = await owned();
        const r = await store.createRule(u.id, p.id, e.id, rule('hot'), 3);
        const got = await Promise.all(
          Array.from({ length: 200 }, (_, i) => (i % 2 ? other : store).hotHit(r.id, 'shared')),
        );
        expect([...got].sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
        expect(await store.hotHit(r.id, 'fresh')).toBe(1);
        expect(await store.hotHit(r.id, '')).toBe(1);
        expect((await store.getRule(u.id, p.id, e.id, r.id, 'shared'))?.hits).toBe(200);
      } finally {
        await other.close();
      }
    });

    it('hotUpdateStorage: a concurrent append pattern loses nothing, also across two Store instances', async () => {
      const other = await Store.open(db.url);
      try {
        const { u, p, e } = await owned();
        const append = (s: Store, i: number) =>
          s.hotUpdateStorage(e.id, '', (cur) => {
            const list = cur.get('list') ?? '';
            const n = Number(cur.get('n') ?? 0);
            return [
              ['list', list ? `${list},${i}` : String(i)],
              ['n', String(n + 1)],
            ];
          });
        const results = await Promise.all(Array.from({ length: 120 }, (_, i) => append(i % 3 ? store : other, i)));
        // each call saw the values it wrote
        for (const m of results) expect(m.get('list')?.split(',').length).toBe(Number(m.get('n')));
        const final = await store.getStorage(u.id, p.id, e.id);
        expect(final.n).toBe('120');
        const items = final.list.split(',').map(Number);
        expect(items).toHaveLength(120);
        expect([...items].sort((x, y) => x - y)).toEqual(Array.from({ length: 120 }, (_, i) => i));
        expect(Object.fromEntries(await store.hotStorage(e.id, ''))).toEqual({ list: final.list, n: '120' });
      } finally {
        await other.close();
      }
    });

    it('storage is per endpoint and per session; clearStorage empties one session or all', async () => {
      const { u, p, e } = await owned('/one');
      const e2 = await store.createEndpoint(u.id, p.id, ep('GET', '/two'));
      await store.hotUpdateStorage(e.id, '', () => [['a', '1']]);
      await store.hotUpdateStorage(e.id, 's1', () => [['a', 's']]);
      await store.hotUpdateStorage(e2.id, '', () => [['b', '2']]);
      expect(await store.getStorage(u.id, p.id, e.id)).toEqual({ a: '1' });
      expect(await store.getStorage(u.id, p.id, e.id, 's1')).toEqual({ a: 's' });
      expect(await store.getStorage(u.id, p.id, e2.id)).toEqual({ b: '2' });
      await store.clearStorage(u.id, p.id, e.id, 's1');
      expect(await store.getStorage(u.id, p.id, e.id, 's1')).toEqual({});
      expect(await store.getStorage(u.id, p.id, e.id)).toEqual({ a: '1' });
      await store.hotUpdateStorage(e.id, 's1', () => [['a', 's']]);
      await store.clearStorage(u.id, p.id, e.id);
      expect(await store.getStorage(u.id, p.id, e.id)).toEqual({});
      expect(await store.getStorage(u.id, p.id, e.id, 's1')).toEqual({});
      expect(await store.getStorage(u.id, p.id, e2.id)).toEqual({ b: '2' });
    });
  });

  describe('request log', () => {
    it('appends, lists newest first with a limit, and is owner-filtered', async () => {
      const { u, p } = await owned();
      const other = await owned();
      const entries = Array.from({ length: 12 }, (_, i) => logEntry(i));
      await store.appendLog(entries.slice(0, 5).map((entry) => ({ projectId: p.id, entry })));
      await store.appendLog([
        ...entries.slice(5).map((entry) => ({ projectId: p.id, entry })),
        { projectId: other.p.id, entry: logEntry(99) },
      ]);
      const all = await store.listLog(u.id, p.id, 100);
      expect(all.map((x) => x.id)).toEqual(entries.map((x) => x.id).reverse());
      expect(all[0]).toMatchObject({ ...entries[11], seq: expect.any(Number) });
      const three = await store.listLog(u.id, p.id, 3);
      expect(three.map((x) => x.id)).toEqual([entries[11].id, entries[10].id, entries[9].id]);
      const after = await store.listLog(u.id, p.id, 100, three[1].seq);
      expect(after.map((x) => x.id)).toEqual([entries[11].id]);
      expect(await codeOf(store.listLog(other.u.id, p.id, 10))).toBe('not_found');
      expect((await store.listLog(other.u.id, other.p.id, 10)).map((x) => x.path)).toEqual(['/n/99']);
    });

    it('trimLog keeps the newest N of one project only', async () => {
      const { u, p } = await owned();
      const other = await owned();
      const entries = Array.from({ length: 20 }, (_, i) => logEntry(i));
      await store.appendLog(entries.map((entry) => ({ projectId: p.id, entry })));
      await store.appendLog([0, 1, 2].map((i) => ({ projectId: other.p.id, entry: logEntry(i) })));
      await store.trimLog(p.id, 7);
      const left = await store.listLog(u.id, p.id, 100);
      expect(left.map((x) => x.id)).toEqual(
        entries
          .slice(13)
          .map((x) => x.id)
          .reverse(),
      );
      await store.trimLog(p.id, 7); // nothing more to trim
      expect(await store.listLog(u.id, p.id, 100)).toHaveLength(7);
      expect(await store.listLog(other.u.id, other.p.id, 100)).toHaveLength(3);
    });

    it('logSince and maxLogSeq see every project’s entries in order', async () => {
      const { p } = await owned();
      const before = await store.maxLogSeq();
      const e1 = logEntry(1);
      const e2 = logEntry(2);
      await store.appendLog([
        { projectId: p.id, entry: e1 },
        { projectId: p.id, entry: e2 },
      ]);
      const since = await store.logSince(before, 100);
      expect(since.map((x) => x.entry.id)).toEqual([e1.id, e2.id]);
      expect(since.every((x) => x.projectId === p.id)).toBe(true);
      expect(await store.maxLogSeq()).toBe(since[1].seq);
    });
  });

  describe('mock configuration', () => {
    it('loadProjectConfig answers the project, its endpoints and rules in order, and a version', async () => {
      const { u, p, e } = await owned('/a');
      const e2 = await store.createEndpoint(u.id, p.id, ep('POST', '/b'));
      const r1 = await store.createRule(u.id, p.id, e.id, rule('b', { priority: 2 }), 25);
      const r2 = await store.createRule(u.id, p.id, e2.id, rule('a', { priority: 1 }), 25);
      const r3 = await store.createRule(u.id, p.id, e.id, rule('c', { priority: 2 }), 25);
      const cfg = await store.loadProjectConfig(p.id);
      expect(cfg?.project).toEqual(await store.getProject(u.id, p.id));
      expect(cfg?.endpoints.map((x) => x.id)).toEqual([e.id, e2.id]);
      expect(cfg?.rules.map((x) => x.id)).toEqual([r2.id, r1.id, r3.id]);
      expect(cfg?.rules[1]).toMatchObject({ endpointId: e.id, projectId: p.id, name: 'b' });
      expect(typeof cfg?.version).toBe('number');
      expect(cfg?.version).toBe(await store.projectVersion(p.id));
      expect(await store.loadProjectConfig('nope')).toBeNull();
    });

    it('projectVersions increase with every configuration change, and a change event is emitted', async () => {
      const { u, p, e } = await owned();
      const other = await owned();
      const events: string[] = [];
      const onChange = (id: string) => events.push(id);
      store.on('change', onChange);
      try {
        const seen: number[] = [];
        const version = async () => {
          const v = (await store.projectVersions([p.id]))?.get(p.id) as number;
          seen.push(v);
          return v;
        };
        const steps: [string, () => Promise<unknown>][] = [
          ['create endpoint', () => store.createEndpoint(u.id, p.id, ep('POST', '/new'))],
          ['update endpoint', () => store.updateEndpoint(u.id, p.id, e.id, ep('GET', '/x', { statusCode: 500 }))],
          ['create rule', () => store.createRule(u.id, p.id, e.id, rule('r'), 3)],
          [
            'update rule',
            async () => {
              const r = (await store.listRules(u.id, p.id, e.id))[0];
              return store.updateRule(u.id, p.id, e.id, r.id, rule('r', { active: false }), false);
            },
          ],
          [
            'delete rule',
            async () => {
              const r = (await store.listRules(u.id, p.id, e.id))[0];
              return store.deleteRule(u.id, p.id, e.id, r.id);
            },
          ],
          ['rename project', () => store.updateProject(u.id, p.id, { name: 'renamed' })],
          ['delete endpoint', () => store.deleteEndpoint(u.id, p.id, e.id)],
        ];
        let last = await version();
        for (const [name, change] of steps) {
          events.length = 0;
          await change();
          const v = await version();
          expect({ name, increased: v > last }).toEqual({ name, increased: true });
          expect({ name, events }).toEqual({ name, events: [p.id] });
          last = v;
        }
        // resets and storage clears are announced too
        const r = await store.createRule(u.id, p.id, (await store.listEndpoints(u.id, p.id))[0].id, rule('z'), 3);
        events.length = 0;
        await store.resetRule(u.id, p.id, r.endpointId, r.id);
        await store.clearStorage(u.id, p.id, r.endpointId);
        expect(events).toEqual([p.id, p.id]);
        // another project's version did not move; unknown ids are left out
        const versions = await store.projectVersions([other.p.id, 'nope']);
        expect(versions.has('nope')).toBe(false);
        expect(versions.get(other.p.id)).toBe(await store.projectVersion(other.p.id));
        const otherBefore = versions.get(other.p.id);
        await store.createEndpoint(u.id, p.id, ep('GET', '/more'));
        expect(await store.projectVersion(other.p.id)).toBe(otherBefore);
        expect(await store.projectVersions([])).toEqual(new Map());
      } finally {
        store.off('change', onChange);
      }
    });

    it('a version seen by a second Store instance moves with the first one’s changes', async () => {
      const other = await Store.open(db.url);
      try {
        const { u, p } = await owned();
        const v1 = await other.projectVersion(p.id);
        await store.createEndpoint(u.id, p.id, ep('DELETE', '/y'));
        const v2 = await other.projectVersion(p.id);
        expect(v2).toBeGreaterThan(v1 as number);
        expect((await other.loadProjectConfig(p.id))?.endpoints).toHaveLength(2);
      } finally {
        await other.close();
      }
    });
  });
});
