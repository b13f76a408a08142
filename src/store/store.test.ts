/**
 * The Store on its own (no HTTP), one test body for every database in DIALECTS: users and
 * sessions, owner filtering on every read and write, cascades, route-key conflicts, the rule plan
 * limit under concurrency, the atomic hot-path counters and storage updates (also across two Store
 * instances on one database, as two processes would be). Cascades, the hot path, the request log and
 * project versions: store-hot.test.ts.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { codeOf, email, ep, hash, rule, storeHelpers } from '../../test/helpers/store-records.js';
import { AppError } from '../domain/errors.js';
import { openStore, type Store } from './index.js';

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
  const { user, owned } = storeHelpers(() => store);

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

  it('createMany: one transaction answers each endpoint, a conflict (taken route, in the store or the batch) or the limit, in order', async () => {
    const { u, p } = await owned('/taken');
    const version = async () => (await store.mockConfig.versions([p.id]))?.get(p.id) as number;
    const before = await version();
    const made = await store.endpoints.createMany(
      u.id,
      p.id,
      [ep('GET', '/a'), ep('GET', '/taken'), ep('POST', '/a'), ep('GET', '/a/'), ep('GET', '/b'), ep('GET', '/c')],
      4,
    );
    const codes = made.map((m) => (m instanceof AppError ? m.code : `${m.method} ${m.path}`));
    expect(codes).toEqual(['GET /a', 'conflict', 'POST /a', 'conflict', 'GET /b', 'limit_exceeded']);
    const listed = await store.endpoints.list(u.id, p.id);
    expect(listed.map((e) => `${e.method} ${e.path}`)).toEqual(['GET /taken', 'GET /a', 'POST /a', 'GET /b']);
    expect(listed.slice(1).map((e) => e.id)).toEqual(made.flatMap((m) => (m instanceof AppError ? [] : [m.id])));
    // one version move for the whole batch
    expect(await version()).toBe(before + 1);
    expect(await codeOf(store.endpoints.createMany('someone-else', p.id, [ep('GET', '/x')]))).toBe('not_found');
    expect(await store.endpoints.createMany(u.id, p.id, [])).toEqual([]);
  });

  it('createMany: more endpoints than one insert statement holds are all made, in order, up to the limit', async () => {
    const { u, p } = await owned('/first');
    const inputs = Array.from({ length: 450 }, (_, i) => ep('GET', `/many/${i}`));
    const made = await store.endpoints.createMany(u.id, p.id, inputs, 421);
    expect(made.slice(0, 420).every((m) => !(m instanceof AppError))).toBe(true);
    expect(made.slice(420).every((m) => m instanceof AppError && m.code === 'limit_exceeded')).toBe(true);
    const listed = await store.endpoints.list(u.id, p.id);
    expect(listed.map((e) => e.path)).toEqual(['/first', ...inputs.slice(0, 420).map((e) => e.path)]);
    const all = await store.endpoints.createMany(u.id, p.id, inputs.slice(420));
    expect(all.every((m) => !(m instanceof AppError))).toBe(true);
    expect(await store.endpoints.count(p.id)).toBe(451);
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
});
