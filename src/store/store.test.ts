/**
 * The Store on its own (no HTTP), one test body for every database in DIALECTS: users and
 * sessions, owner filtering on every read and write, cascades, route-key conflicts, the rule plan
 * limit under concurrency, the atomic hot-path counters and storage updates (also across two Store
 * instances on one database, as two processes would be), the request log, and project versions.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { AppError } from '../domain/errors.js';
import type { RequestLogEntry } from '../domain/model.js';
import type { EndpointInput as NewEndpoint, RuleInput as RuleFields } from '../domain/validate.js';
import { openStore, type Store } from './index.js';

const hash = () => `h-${randomBytes(8).toString('hex')}`;
const email = () => `s-${randomBytes(5).toString('hex')}@Example.test`;

const ep = (method: NewEndpoint['method'], path: string, extra: Partial<NewEndpoint> = {}): NewEndpoint => ({
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
    store = await openStore(db.url);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  const user = () => store.users.create(email(), hash());
  /** an owner with a project and an endpoint */
  async function owned(path = '/x') {
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
        await store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          // biome-ignore lint/suspicious/noExplicitAny: a column of any of these tables
          .where(col as any, '=', v)
          .executeTakeFirst()
      )?.n ?? 0,
    );

  it('opens an existing database again (migrations are idempotent)', async () => {
    const again = await openStore(db.url);
    try {
      expect(await again.ping()).toBe(true);
    } finally {
      await again.close();
    }
  });

  it('takes over a database made by the hand-written runner of earlier versions, and gives its projects a slug', async () => {
    const old = await freshDatabase(dialect);
    try {
      // the schema as version 1 of the old runner left it: no Kysely migration table, no slug
      const first = await openStore(old.url);
      await sql`DROP INDEX projects_slug`.execute(first.db);
      await sql`ALTER TABLE projects DROP COLUMN slug`.execute(first.db);
      await sql`DROP TABLE kysely_migration`.execute(first.db);
      await sql`DROP TABLE kysely_migration_lock`.execute(first.db);
      await sql`CREATE TABLE schema_version (version INTEGER NOT NULL)`.execute(first.db);
      await sql`INSERT INTO schema_version (version) VALUES (1)`.execute(first.db);
      const u = await first.users.create(email(), hash());
      await sql`INSERT INTO projects (id, owner_id, name, created_at, updated_at)
        VALUES ('legacy-project-id-00001', ${u.id}, 'Legacy Shop', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`.execute(
        first.db,
      );
      await first.close();

      const store2 = await openStore(old.url);
      try {
        const [p] = await store2.projects.list(u.id);
        expect(p.slug).toMatch(/^legacy-shop-[a-z0-9]{6}$/);
        expect(await store2.projects.idBySlug(p.slug)).toBe(p.id);
        const made = await store2.projects.create(u.id, { name: 'new' });
        expect(made.slug).toMatch(/^new-/);
      } finally {
        await store2.close();
      }
    } finally {
      await old.drop();
    }
  });

  describe('users', () => {
    it('creates a free user with the email in lower case, found in any case, never with the hash', async () => {
      const e = email();
      const h = hash();
      const u = await store.users.create(e, h);
      expect(u).toEqual({ id: u.id, email: e.toLowerCase(), plan: 'free', createdAt: u.createdAt });
      expect(await store.users.get(u.id)).toEqual(u);
      expect(JSON.stringify(await store.users.get(u.id))).not.toContain(h);
      const found = await store.users.findByEmail(e.toUpperCase());
      expect(found).toMatchObject({ id: u.id, passwordHash: h });
      expect(await store.users.getWithHash(u.id)).toMatchObject({ id: u.id, passwordHash: h });
      expect(await store.users.findByEmail(`x${e}`)).toBeNull();
      expect(await store.users.get('nobody')).toBeNull();
    });

    it('rejects a second user with the same email in any case (conflict)', async () => {
      const e = email();
      await store.users.create(e, hash());
      expect(await codeOf(store.users.create(e.toUpperCase(), hash()))).toBe('conflict');
      expect(await codeOf(store.users.create(e.toLowerCase(), hash()))).toBe('conflict');
    });

    it('lets exactly one of many concurrent registrations of one email through', async () => {
      const e = email();
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store.users.create(i % 2 ? e.toUpperCase() : e, hash())),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('conflict');
      }
    });

    it('sets the password and the plan', async () => {
      const u = await user();
      await store.users.setPassword(u.id, 'new-hash');
      expect((await store.users.getWithHash(u.id))?.passwordHash).toBe('new-hash');
      expect(await store.users.setPlan(u.id, 'business')).toMatchObject({ id: u.id, plan: 'business' });
      expect((await store.users.get(u.id))?.plan).toBe('business');
      expect(await store.users.setPlan('nobody', 'pro')).toBeNull();
    });
  });

  describe('sessions', () => {
    it('answers the user of an unexpired session, null once expired, deleted or unknown', async () => {
      const u = await user();
      const live = hash();
      const old = hash();
      await store.loginTokens.create(live, u.id, new Date(Date.now() + 60_000));
      await store.loginTokens.create(old, u.id, new Date(Date.now() - 1));
      expect(await store.loginTokens.user(live)).toEqual(await store.users.get(u.id));
      expect(await store.loginTokens.user(old)).toBeNull();
      expect(await store.loginTokens.user('unknown')).toBeNull();
      await store.loginTokens.delete(live);
      expect(await store.loginTokens.user(live)).toBeNull();
    });

    it('deleteOtherSessions keeps the given one and leaves other users alone', async () => {
      const u = await user();
      const other = await user();
      const [keep, drop1, drop2, theirs] = [hash(), hash(), hash(), hash()];
      const later = new Date(Date.now() + 60_000);
      for (const t of [keep, drop1, drop2]) await store.loginTokens.create(t, u.id, later);
      await store.loginTokens.create(theirs, other.id, later);
      await store.loginTokens.deleteOthers(u.id, keep);
      expect((await store.loginTokens.user(keep))?.id).toBe(u.id);
      expect(await store.loginTokens.user(drop1)).toBeNull();
      expect(await store.loginTokens.user(drop2)).toBeNull();
      expect((await store.loginTokens.user(theirs))?.id).toBe(other.id);
    });

    it('the session user reflects a plan change', async () => {
      const u = await user();
      const t = hash();
      await store.loginTokens.create(t, u.id, new Date(Date.now() + 60_000));
      await store.users.setPlan(u.id, 'pro');
      expect((await store.loginTokens.user(t))?.plan).toBe('pro');
    });
  });

  describe('projects', () => {
    it('lists only the owner’s projects, oldest first', async () => {
      const a = await user();
      const b = await user();
      const p1 = await store.projects.create(a.id, { name: 'one' });
      await store.projects.create(b.id, { name: 'theirs' });
      const p2 = await store.projects.create(a.id, { name: 'two' });
      expect((await store.projects.list(a.id)).map((p) => p.id)).toEqual([p1.id, p2.id]);
      expect(await store.projects.count(a.id)).toBe(2);
      expect(await store.projects.get(a.id, p1.id)).toEqual(p1);
    });

    it('another owner’s project is null / not_found on every method and stays unchanged', async () => {
      const a = await user();
      const b = await user();
      const p = await store.projects.create(a.id, { name: 'mine' });
      expect(await store.projects.get(b.id, p.id)).toBeNull();
      expect(await codeOf(store.projects.require(b.id, p.id))).toBe('not_found');
      expect(await codeOf(store.projects.update(b.id, p.id, { name: 'stolen' }))).toBe('not_found');
      expect(await codeOf(store.projects.delete(b.id, p.id))).toBe('not_found');
      expect(await codeOf(store.endpoints.list(b.id, p.id))).toBe('not_found');
      expect(await codeOf(store.endpoints.create(b.id, p.id, ep('GET', '/planted')))).toBe('not_found');
      expect(await codeOf(store.logs.list(b.id, p.id, 10))).toBe('not_found');
      expect(await store.projects.get(a.id, p.id)).toEqual(p);
      expect(await store.endpoints.list(a.id, p.id)).toEqual([]);
      expect(await store.projects.list(b.id)).toEqual([]);
    });

    it('updates the name and updatedAt; unknown ids are not_found', async () => {
      const a = await user();
      const p = await store.projects.create(a.id, { name: 'before' });
      await new Promise((r) => setTimeout(r, 5));
      const up = await store.projects.update(a.id, p.id, { name: 'after' });
      expect(up).toMatchObject({ id: p.id, name: 'after', createdAt: p.createdAt });
      expect(Date.parse(up.updatedAt)).toBeGreaterThan(Date.parse(p.updatedAt));
      expect((await store.projects.update(a.id, p.id, {})).name).toBe('after');
      expect(await codeOf(store.projects.update(a.id, 'nope', { name: 'x' }))).toBe('not_found');
      expect(await codeOf(store.projects.delete(a.id, 'nope'))).toBe('not_found');
    });
  });

  describe('endpoints', () => {
    it('creates, lists oldest first, reads, updates and deletes', async () => {
      const { u, p, e } = await owned('/a');
      expect(e).toMatchObject({ projectId: p.id, method: 'GET', path: '/a', statusCode: 200 });
      const e2 = await store.endpoints.create(u.id, p.id, ep('POST', '/b', { statusCode: 201, responseBody: 'x' }));
      expect((await store.endpoints.list(u.id, p.id)).map((x) => x.id)).toEqual([e.id, e2.id]);
      expect(await store.endpoints.get(u.id, p.id, e2.id)).toEqual(e2);
      const up = await store.endpoints.update(u.id, p.id, e2.id, ep('POST', '/c', { statusCode: 202 }));
      expect(up).toMatchObject({ id: e2.id, path: '/c', statusCode: 202, createdAt: e2.createdAt });
      await store.endpoints.delete(u.id, p.id, e2.id);
      expect(await store.endpoints.get(u.id, p.id, e2.id)).toBeNull();
      expect(await store.endpoints.count(p.id)).toBe(1);
    });

    it('another owner’s endpoint, or one under another project, is null / not_found', async () => {
      const { u, p, e } = await owned();
      const b = await user();
      const otherP = await store.projects.create(u.id, { name: 'other' });
      const bp = await store.projects.create(b.id, { name: 'b' });
      expect(await store.endpoints.get(b.id, p.id, e.id)).toBeNull();
      expect(await store.endpoints.get(u.id, otherP.id, e.id)).toBeNull();
      expect(await store.endpoints.get(b.id, bp.id, e.id)).toBeNull();
      expect(await codeOf(store.endpoints.update(b.id, p.id, e.id, ep('GET', '/stolen')))).toBe('not_found');
      expect(await codeOf(store.endpoints.update(b.id, bp.id, e.id, ep('GET', '/stolen')))).toBe('not_found');
      expect(await codeOf(store.endpoints.update(u.id, otherP.id, e.id, ep('GET', '/moved')))).toBe('not_found');
      expect(await codeOf(store.endpoints.delete(b.id, p.id, e.id))).toBe('not_found');
      expect(await codeOf(store.endpoints.delete(b.id, bp.id, e.id))).toBe('not_found');
      expect(await codeOf(store.storage.get(b.id, p.id, e.id))).toBe('not_found');
      expect(await codeOf(store.storage.clear(b.id, p.id, e.id))).toBe('not_found');
      expect(await codeOf(store.rules.list(b.id, p.id, e.id))).toBe('not_found');
      expect(await codeOf(store.rules.create(b.id, p.id, e.id, rule('x'), 3))).toBe('not_found');
      expect(await codeOf(store.rules.create(b.id, bp.id, e.id, rule('x'), 3))).toBe('not_found');
      expect(await store.endpoints.get(u.id, p.id, e.id)).toEqual(e);
      expect(await store.rules.count(e.id)).toBe(0);
    });

    it('a second endpoint with the same method and route key is a conflict, on create and update', async () => {
      const { u, p } = await owned('/users/:id');
      expect(await codeOf(store.endpoints.create(u.id, p.id, ep('GET', '/users/:id')))).toBe('conflict');
      expect(await codeOf(store.endpoints.create(u.id, p.id, ep('GET', '/users/:uid/')))).toBe('conflict');
      const post = await store.endpoints.create(u.id, p.id, ep('POST', '/users/:id'));
      expect(await codeOf(store.endpoints.update(u.id, p.id, post.id, ep('GET', '/users/:x')))).toBe('conflict');
      expect((await store.endpoints.get(u.id, p.id, post.id))?.method).toBe('POST');
      // the same route in another project is fine
      const p2 = await store.projects.create(u.id, { name: 'p2' });
      await store.endpoints.create(u.id, p2.id, ep('GET', '/users/:id'));
      expect(await store.endpoints.count(p.id)).toBe(2);
    });

    it('concurrent creates of one route: exactly one wins, the rest conflict', async () => {
      const u = await user();
      const p = await store.projects.create(u.id, { name: 'race' });
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () => store.endpoints.create(u.id, p.id, ep('PUT', '/race'))),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('conflict');
      expect(await store.endpoints.count(p.id)).toBe(1);
    });
  });

  describe('rules', () => {
    it('lists by priority, then creation; reads, updates, resets and deletes', async () => {
      const { u, p, e } = await owned();
      const r1 = await store.rules.create(u.id, p.id, e.id, rule('late', { priority: 5 }), 25);
      const r2 = await store.rules.create(u.id, p.id, e.id, rule('first', { priority: -1 }), 25);
      const r3 = await store.rules.create(u.id, p.id, e.id, rule('later', { priority: 5 }), 25);
      expect((await store.rules.list(u.id, p.id, e.id)).map((r) => r.id)).toEqual([r2.id, r1.id, r3.id]);
      expect(await store.rules.get(u.id, p.id, e.id, r1.id)).toMatchObject({ id: r1.id, name: 'late', hits: 0 });

      const steps = {
        mode: 'loop' as const,
        steps: [{ statusCode: 500, body: '', headers: {}, delayMs: 0, delayMaxMs: 0, count: 1 }],
      };
      const up = await store.rules.update(
        u.id,
        p.id,
        e.id,
        r1.id,
        rule('renamed', { active: false, response: steps }),
        false,
      );
      expect(up).toMatchObject({ id: r1.id, name: 'renamed', active: false, response: steps, priority: 0 });

      await store.hot.hit(r1.id, '');
      await store.hot.hit(r1.id, '');
      await store.hot.hit(r1.id, 's1');
      expect((await store.rules.get(u.id, p.id, e.id, r1.id))?.hits).toBe(2);
      expect((await store.rules.get(u.id, p.id, e.id, r1.id, 's1'))?.hits).toBe(1);
      expect((await store.rules.list(u.id, p.id, e.id)).find((r) => r.id === r1.id)?.hits).toBe(2);
      // reset of one session, then of every session
      expect((await store.rules.reset(u.id, p.id, e.id, r1.id, 's1')).hits).toBe(0);
      expect((await store.rules.get(u.id, p.id, e.id, r1.id))?.hits).toBe(2);
      expect((await store.rules.reset(u.id, p.id, e.id, r1.id)).hits).toBe(0);
      // an update that changes the response resets the counter
      await store.hot.hit(r1.id, '');
      expect((await store.rules.update(u.id, p.id, e.id, r1.id, rule('again'), true)).hits).toBe(0);

      await store.rules.delete(u.id, p.id, e.id, r2.id);
      expect(await store.rules.get(u.id, p.id, e.id, r2.id)).toBeNull();
      expect(await store.rules.count(e.id)).toBe(2);
    });

    it('another owner’s rule, or one under another endpoint, is null / not_found and unchanged', async () => {
      const { u, p, e } = await owned('/one');
      const e2 = await store.endpoints.create(u.id, p.id, ep('GET', '/two'));
      const r = await store.rules.create(u.id, p.id, e.id, rule('mine'), 3);
      const b = await owned('/b');
      expect(await store.rules.get(b.u.id, p.id, e.id, r.id)).toBeNull();
      expect(await store.rules.get(b.u.id, b.p.id, b.e.id, r.id)).toBeNull();
      expect(await store.rules.get(u.id, p.id, e2.id, r.id)).toBeNull();
      for (const [owner, pid, eid] of [
        [b.u.id, p.id, e.id],
        [b.u.id, b.p.id, b.e.id],
        [u.id, p.id, e2.id],
      ]) {
        expect(await codeOf(store.rules.require(owner, pid, eid, r.id))).toBe('not_found');
        expect(await codeOf(store.rules.update(owner, pid, eid, r.id, rule('stolen'), true))).toBe('not_found');
        expect(await codeOf(store.rules.reset(owner, pid, eid, r.id))).toBe('not_found');
        expect(await codeOf(store.rules.delete(owner, pid, eid, r.id))).toBe('not_found');
      }
      expect(await store.rules.get(u.id, p.id, e.id, r.id)).toEqual(r);
    });

    it('createRule refuses past the limit with plan_limit_exceeded', async () => {
      const { u, p, e } = await owned();
      for (let i = 0; i < 3; i++) await store.rules.create(u.id, p.id, e.id, rule(`r${i}`), 3);
      expect(await codeOf(store.rules.create(u.id, p.id, e.id, rule('r3'), 3))).toBe('plan_limit_exceeded');
      expect(await store.rules.count(e.id)).toBe(3);
      // the limit is per endpoint, and a higher limit allows more
      await store.rules.create(u.id, p.id, e.id, rule('r3'), 15);
      expect(await store.rules.count(e.id)).toBe(4);
    });

    it('concurrent creates never pass the limit', async () => {
      const { u, p, e } = await owned();
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) => store.rules.create(u.id, p.id, e.id, rule(`c${i}`), 5)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
      for (const r of results) {
        if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('plan_limit_exceeded');
      }
      expect(await store.rules.count(e.id)).toBe(5);
    });

    // Several processes share one database only on PostgreSQL (docs/deploy.md); on SQLite the
    // second writer of an interleaved transaction gets SQLITE_BUSY, which is not this test's point.
    it.runIf(dialect === 'postgres')(
      'concurrent creates through two Store instances (two processes) never pass the limit',
      async () => {
        const other = await openStore(db.url);
        try {
          const { u, p, e } = await owned();
          const results = await Promise.allSettled(
            Array.from({ length: 20 }, (_, i) =>
              (i % 2 ? other : store).rules.create(u.id, p.id, e.id, rule(`c${i}`), 3),
            ),
          );
          expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
          for (const r of results) {
            if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('plan_limit_exceeded');
          }
          expect(await store.rules.count(e.id)).toBe(3);
        } finally {
          await other.close();
        }
      },
    );
  });

  describe('cascades', () => {
    async function full() {
      const { u, p, e } = await owned();
      const r = await store.rules.create(u.id, p.id, e.id, rule('r'), 3);
      await store.hot.hit(r.id, '');
      await store.hot.hit(r.id, 'session-a');
      await store.hot.updateStorage({ kind: 'endpoint', id: e.id }, '', () => [['k', 'v']]);
      await store.hot.appendLog([{ projectId: p.id, entry: logEntry(1) }]);
      return { u, p, e, r };
    }

    it('deleting a project removes its endpoints, rules, hit counters, storage and request log', async () => {
      const { u, p, e, r } = await full();
      const keep = await full();
      expect(await count('request_log', 'project_id', p.id)).toBe(1);
      await store.projects.delete(u.id, p.id);
      expect(await store.projects.get(u.id, p.id)).toBeNull();
      expect(await count('endpoints', 'project_id', p.id)).toBe(0);
      expect(await count('rules', 'project_id', p.id)).toBe(0);
      expect(await count('rule_hits', 'rule_id', r.id)).toBe(0);
      expect(await count('storage', 'endpoint_id', e.id)).toBe(0);
      expect(await count('request_log', 'project_id', p.id)).toBe(0);
      expect(await store.mockConfig.load(p.id)).toBeNull();
      // log entries of a deleted project are dropped, not written
      await store.hot.appendLog([{ projectId: p.id, entry: logEntry(2) }]);
      expect(await count('request_log', 'project_id', p.id)).toBe(0);
      // the other project is whole
      expect(await count('rules', 'project_id', keep.p.id)).toBe(1);
      expect(await count('rule_hits', 'rule_id', keep.r.id)).toBe(2);
      expect(await count('storage', 'endpoint_id', keep.e.id)).toBe(1);
      expect(await count('request_log', 'project_id', keep.p.id)).toBe(1);
      // in a batch with a live project's entries, only the deleted project's are dropped
      await store.hot.appendLog([
        { projectId: keep.p.id, entry: logEntry(3) },
        { projectId: p.id, entry: logEntry(4) },
        { projectId: keep.p.id, entry: logEntry(5) },
      ]);
      expect(await count('request_log', 'project_id', p.id)).toBe(0);
      expect((await store.logs.list(keep.u.id, keep.p.id, 10)).map((x) => x.path)).toEqual(['/n/5', '/n/3', '/n/1']);
    });

    it('deleting an endpoint removes its rules, hit counters and storage', async () => {
      const { u, p, e, r } = await full();
      await store.endpoints.delete(u.id, p.id, e.id);
      expect(await count('rules', 'endpoint_id', e.id)).toBe(0);
      expect(await count('rule_hits', 'rule_id', r.id)).toBe(0);
      expect(await count('storage', 'endpoint_id', e.id)).toBe(0);
      expect(await store.projects.get(u.id, p.id)).not.toBeNull();
    });

    it('deleting a rule removes its hit counters', async () => {
      const { u, p, e, r } = await full();
      await store.rules.delete(u.id, p.id, e.id, r.id);
      expect(await count('rule_hits', 'rule_id', r.id)).toBe(0);
      expect(await count('storage', 'endpoint_id', e.id)).toBe(1);
    });
  });

  describe('hot path', () => {
    it('hot.hit: 500 concurrent hits give exactly 1..500', async () => {
      const { u, p, e } = await owned();
      const r = await store.rules.create(u.id, p.id, e.id, rule('hot'), 3);
      const got = await Promise.all(Array.from({ length: 500 }, () => store.hot.hit(r.id, '')));
      expect([...got].sort((x, y) => x - y)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
      expect((await store.rules.get(u.id, p.id, e.id, r.id))?.hits).toBe(500);
    });

    it('hot.hit: hits of one turn are counted in the order they were asked; a missing rule fails alone', async () => {
      const { u, p, e } = await owned();
      const a = await store.rules.create(u.id, p.id, e.id, rule('a'), 3);
      const b = await store.rules.create(u.id, p.id, e.id, rule('b'), 3);
      await store.hot.hit(a.id, '');
      // one event-loop turn: a, b and a rule that does not exist (a foreign-key failure)
      const asked = [a.id, b.id, a.id, 'no-such-rule', a.id, b.id].map((id) =>
        Promise.resolve(store.hot.hit(id, '')).then(
          (n) => n,
          () => 'failed',
        ),
      );
      expect(await Promise.all(asked)).toEqual([2, 1, 3, 'failed', 4, 2]);
      expect((await store.rules.get(u.id, p.id, e.id, a.id))?.hits).toBe(4);
    });

    it("hot.hit: a turn of one rule's hits alone (one statement, no transaction on SQLite) counts them in order; a lone missing rule fails and the next turn counts on", async () => {
      const { u, p, e } = await owned();
      const a = await store.rules.create(u.id, p.id, e.id, rule('a'), 3);
      expect(await Promise.all([1, 2, 3].map(() => store.hot.hit(a.id, '')))).toEqual([1, 2, 3]);
      await expect(Promise.resolve(store.hot.hit('no-such-rule', ''))).rejects.toThrow();
      expect(await Promise.all([store.hot.hit(a.id, ''), store.hot.hit(a.id, 'other')])).toEqual([4, 1]);
      expect(await store.hot.hit(a.id, '')).toBe(5);
      expect((await store.rules.get(u.id, p.id, e.id, a.id))?.hits).toBe(5);
    });

    it('hot.hit counts per session and across two Store instances exactly', async () => {
      const other = await openStore(db.url);
      try {
        const { u, p, e } = await owned();
        const r = await store.rules.create(u.id, p.id, e.id, rule('hot'), 3);
        const got = await Promise.all(
          Array.from({ length: 200 }, (_, i) => (i % 2 ? other : store).hot.hit(r.id, 'shared')),
        );
        expect([...got].sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
        expect(await store.hot.hit(r.id, 'fresh')).toBe(1);
        expect(await store.hot.hit(r.id, '')).toBe(1);
        expect((await store.rules.get(u.id, p.id, e.id, r.id, 'shared'))?.hits).toBe(200);
      } finally {
        await other.close();
      }
    });

    it('hot.updateStorage: a concurrent append pattern loses nothing, also across two Store instances', async () => {
      const other = await openStore(db.url);
      try {
        const { u, p, e } = await owned();
        const append = (s: Store, i: number) =>
          s.hot.updateStorage({ kind: 'endpoint', id: e.id }, '', (cur) => {
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
        const final = await store.storage.get(u.id, p.id, e.id);
        expect(final.n).toBe('120');
        const items = final.list.split(',').map(Number);
        expect(items).toHaveLength(120);
        expect([...items].sort((x, y) => x - y)).toEqual(Array.from({ length: 120 }, (_, i) => i));
        expect(Object.fromEntries(await store.hot.storage({ kind: 'endpoint', id: e.id }, ''))).toEqual({
          list: final.list,
          n: '120',
        });
      } finally {
        await other.close();
      }
    });

    it('hot.updateStorage: a write that throws stores nothing and fails alone among writes asked together', async () => {
      const { e } = await owned('/throws');
      const owner = { kind: 'endpoint' as const, id: e.id };
      const bump = () => store.hot.updateStorage(owner, '', (cur) => [['n', String(Number(cur.get('n') ?? 0) + 1)]]);
      const asked = [
        bump(),
        bump(),
        store.hot.updateStorage(owner, '', (cur) => {
          if (cur.size >= 0) throw new Error('refused');
          return [];
        }),
        bump(),
      ];
      const settled = await Promise.allSettled(asked);
      expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      const seen = settled.map((r) => (r.status === 'fulfilled' ? r.value.get('n') : (r.reason as Error).message));
      expect(seen).toEqual(['1', '2', 'refused', '3']);
      expect(Object.fromEntries(await store.hot.storage(owner, ''))).toEqual({ n: '3' });
    });

    it('storage is per endpoint and per session; storage.clear empties one session or all', async () => {
      const { u, p, e } = await owned('/one');
      const e2 = await store.endpoints.create(u.id, p.id, ep('GET', '/two'));
      await store.hot.updateStorage({ kind: 'endpoint', id: e.id }, '', () => [['a', '1']]);
      await store.hot.updateStorage({ kind: 'endpoint', id: e.id }, 's1', () => [['a', 's']]);
      await store.hot.updateStorage({ kind: 'endpoint', id: e2.id }, '', () => [['b', '2']]);
      expect(await store.storage.get(u.id, p.id, e.id)).toEqual({ a: '1' });
      expect(await store.storage.get(u.id, p.id, e.id, 's1')).toEqual({ a: 's' });
      expect(await store.storage.get(u.id, p.id, e2.id)).toEqual({ b: '2' });
      await store.storage.clear(u.id, p.id, e.id, 's1');
      expect(await store.storage.get(u.id, p.id, e.id, 's1')).toEqual({});
      expect(await store.storage.get(u.id, p.id, e.id)).toEqual({ a: '1' });
      await store.hot.updateStorage({ kind: 'endpoint', id: e.id }, 's1', () => [['a', 's']]);
      await store.storage.clear(u.id, p.id, e.id);
      expect(await store.storage.get(u.id, p.id, e.id)).toEqual({});
      expect(await store.storage.get(u.id, p.id, e.id, 's1')).toEqual({});
      expect(await store.storage.get(u.id, p.id, e2.id)).toEqual({ b: '2' });
    });
  });

  describe('request log', () => {
    it('appends, lists newest first with a limit, and is owner-filtered', async () => {
      const { u, p } = await owned();
      const other = await owned();
      const entries = Array.from({ length: 12 }, (_, i) => logEntry(i));
      await store.hot.appendLog(entries.slice(0, 5).map((entry) => ({ projectId: p.id, entry })));
      await store.hot.appendLog([
        ...entries.slice(5).map((entry) => ({ projectId: p.id, entry })),
        { projectId: other.p.id, entry: logEntry(99) },
      ]);
      const all = await store.logs.list(u.id, p.id, 100);
      expect(all.map((x) => x.id)).toEqual(entries.map((x) => x.id).reverse());
      expect(all[0]).toMatchObject({ ...entries[11], seq: expect.any(Number) });
      const three = await store.logs.list(u.id, p.id, 3);
      expect(three.map((x) => x.id)).toEqual([entries[11].id, entries[10].id, entries[9].id]);
      const after = await store.logs.list(u.id, p.id, 100, three[1].seq);
      expect(after.map((x) => x.id)).toEqual([entries[11].id]);
      expect(await codeOf(store.logs.list(other.u.id, p.id, 10))).toBe('not_found');
      expect((await store.logs.list(other.u.id, other.p.id, 10)).map((x) => x.path)).toEqual(['/n/99']);
    });

    it('logs.trim keeps the newest N of one project only', async () => {
      const { u, p } = await owned();
      const other = await owned();
      const entries = Array.from({ length: 20 }, (_, i) => logEntry(i));
      await store.hot.appendLog(entries.map((entry) => ({ projectId: p.id, entry })));
      await store.hot.appendLog([0, 1, 2].map((i) => ({ projectId: other.p.id, entry: logEntry(i) })));
      await store.logs.trim(p.id, 7);
      const left = await store.logs.list(u.id, p.id, 100);
      expect(left.map((x) => x.id)).toEqual(
        entries
          .slice(13)
          .map((x) => x.id)
          .reverse(),
      );
      await store.logs.trim(p.id, 7); // nothing more to trim
      expect(await store.logs.list(u.id, p.id, 100)).toHaveLength(7);
      expect(await store.logs.list(other.u.id, other.p.id, 100)).toHaveLength(3);
    });

    it('logs.since and logs.maxSeq see every project’s entries in order', async () => {
      const { p } = await owned();
      const before = await store.logs.maxSeq();
      const e1 = logEntry(1);
      const e2 = logEntry(2);
      await store.hot.appendLog([
        { projectId: p.id, entry: e1 },
        { projectId: p.id, entry: e2 },
      ]);
      const since = await store.logs.since(before, 100);
      expect(since.map((x) => x.entry.id)).toEqual([e1.id, e2.id]);
      expect(since.every((x) => x.projectId === p.id)).toBe(true);
      expect(await store.logs.maxSeq()).toBe(since[1].seq);
    });
  });

  describe('mock configuration', () => {
    it('mockConfig.load answers the project, its endpoints and rules in order, and a version', async () => {
      const { u, p, e } = await owned('/a');
      const e2 = await store.endpoints.create(u.id, p.id, ep('POST', '/b'));
      const r1 = await store.rules.create(u.id, p.id, e.id, rule('b', { priority: 2 }), 25);
      const r2 = await store.rules.create(u.id, p.id, e2.id, rule('a', { priority: 1 }), 25);
      const r3 = await store.rules.create(u.id, p.id, e.id, rule('c', { priority: 2 }), 25);
      const cfg = await store.mockConfig.load(p.id);
      expect(cfg?.project).toEqual(await store.projects.get(u.id, p.id));
      expect(cfg?.endpoints.map((x) => x.id)).toEqual([e.id, e2.id]);
      expect(cfg?.rules.map((x) => x.id)).toEqual([r2.id, r1.id, r3.id]);
      expect(cfg?.rules[1]).toMatchObject({ endpointId: e.id, projectId: p.id, name: 'b' });
      expect(typeof cfg?.version).toBe('number');
      expect(cfg?.version).toBe(await store.mockConfig.version(p.id));
      expect(await store.mockConfig.load('nope')).toBeNull();
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
          const v = (await store.mockConfig.versions([p.id]))?.get(p.id) as number;
          seen.push(v);
          return v;
        };
        const steps: [string, () => Promise<unknown>][] = [
          ['create endpoint', () => store.endpoints.create(u.id, p.id, ep('POST', '/new'))],
          ['update endpoint', () => store.endpoints.update(u.id, p.id, e.id, ep('GET', '/x', { statusCode: 500 }))],
          ['create rule', () => store.rules.create(u.id, p.id, e.id, rule('r'), 3)],
          [
            'update rule',
            async () => {
              const r = (await store.rules.list(u.id, p.id, e.id))[0];
              return store.rules.update(u.id, p.id, e.id, r.id, rule('r', { active: false }), false);
            },
          ],
          [
            'delete rule',
            async () => {
              const r = (await store.rules.list(u.id, p.id, e.id))[0];
              return store.rules.delete(u.id, p.id, e.id, r.id);
            },
          ],
          ['rename project', () => store.projects.update(u.id, p.id, { name: 'renamed' })],
          ['delete endpoint', () => store.endpoints.delete(u.id, p.id, e.id)],
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
        const r = await store.rules.create(u.id, p.id, (await store.endpoints.list(u.id, p.id))[0].id, rule('z'), 3);
        events.length = 0;
        await store.rules.reset(u.id, p.id, r.endpointId, r.id);
        await store.storage.clear(u.id, p.id, r.endpointId);
        expect(events).toEqual([p.id, p.id]);
        // another project's version did not move; unknown ids are left out
        const versions = await store.mockConfig.versions([other.p.id, 'nope']);
        expect(versions.has('nope')).toBe(false);
        expect(versions.get(other.p.id)).toBe(await store.mockConfig.version(other.p.id));
        const otherBefore = versions.get(other.p.id);
        await store.endpoints.create(u.id, p.id, ep('GET', '/more'));
        expect(await store.mockConfig.version(other.p.id)).toBe(otherBefore);
        expect(await store.mockConfig.versions([])).toEqual(new Map());
      } finally {
        store.off('change', onChange);
      }
    });

    it('a version seen by a second Store instance moves with the first one’s changes', async () => {
      const other = await openStore(db.url);
      try {
        const { u, p } = await owned();
        const v1 = await other.mockConfig.version(p.id);
        await store.endpoints.create(u.id, p.id, ep('DELETE', '/y'));
        const v2 = await other.mockConfig.version(p.id);
        expect(v2).toBeGreaterThan(v1 as number);
        expect((await other.mockConfig.load(p.id))?.endpoints).toHaveLength(2);
      } finally {
        await other.close();
      }
    });
  });
});
