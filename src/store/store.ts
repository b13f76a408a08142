/**
 * Persistence behind one narrow class, on SQLite (better-sqlite3) or PostgreSQL (pg), through one
 * Kysely codebase. Every method that reads or writes user data takes the owner's id first and
 * filters on it: a record of another user is indistinguishable from a missing one.
 * The mock hot path uses the `hot*` methods, which take no owner (the mock URL is public) and are
 * synchronous on SQLite.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, type RawBuilder, SqliteDialect, sql, type Transaction } from 'kysely';
import type pg from 'pg';
import type {
  Action,
  Condition,
  Endpoint,
  HttpMethod,
  Plan,
  Project,
  RequestLogEntry,
  RuleRecord,
  RuleResponse,
  User,
} from '../domain/model.js';
import { AppError } from '../errors.js';
import { isUniqueViolation } from './errors.js';
import { newId, newSlug, nowIso } from './ids.js';
import { type Database, type Dialect, migrations } from './schema.js';

export interface UserWithHash extends User {
  passwordHash: string;
}

export interface NewEndpoint {
  method: HttpMethod;
  path: string;
  routeKey: string;
  statusCode: number;
  responseBody: string;
  contentType: string;
}

export interface RuleFields {
  name: string;
  priority: number;
  active: boolean;
  conditions: Condition[];
  response: RuleResponse | null;
  actions: Action[];
}

/** What the mock runtime needs of one project. */
export interface ProjectConfig {
  project: Project;
  version: number;
  endpoints: Endpoint[];
  rules: RuleRecord[];
}

type Row<T extends keyof Database> = import('kysely').Selectable<Database[T]>;

const toProject = (r: Row<'projects'>): Project => ({
  id: r.id,
  name: r.name,
  fallbackUrl: r.fallback_url ?? null,
  slug: r.slug ?? '',
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toEndpoint = (r: Row<'endpoints'>): Endpoint => ({
  id: r.id,
  projectId: r.project_id,
  method: r.method as HttpMethod,
  path: r.path,
  statusCode: Number(r.status_code),
  responseBody: r.response_body,
  contentType: r.content_type,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toRule = (r: Row<'rules'>, hits: number): RuleRecord => ({
  id: r.id,
  endpointId: r.endpoint_id,
  projectId: r.project_id,
  name: r.name,
  priority: Number(r.priority),
  active: r.active === true || r.active === 1,
  conditions: JSON.parse(r.conditions),
  response: r.response === null ? null : JSON.parse(r.response),
  actions: JSON.parse(r.actions),
  hits,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toUser = (r: Row<'users'>): UserWithHash => ({
  id: r.id,
  email: r.email,
  plan: r.plan as Plan,
  createdAt: r.created_at,
  passwordHash: r.password_hash,
});

/** Events: 'change' (projectId) whenever a project's mock configuration or state changed. */
export class Store extends EventEmitter {
  readonly dialect: Dialect;
  readonly db: Kysely<Database>;
  private readonly sqlite: SqliteDatabase.Database | null;
  private readonly pool: pg.Pool | null;
  private hot: SqliteHot | null = null;

  private constructor(
    dialect: Dialect,
    db: Kysely<Database>,
    sqlite: SqliteDatabase.Database | null,
    pool: pg.Pool | null,
  ) {
    super();
    this.setMaxListeners(0);
    this.dialect = dialect;
    this.db = db;
    this.sqlite = sqlite;
    this.pool = pool;
  }

  static async open(url: string): Promise<Store> {
    let store: Store;
    if (url.startsWith('sqlite:')) {
      const file = url.slice('sqlite:'.length);
      if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      const sqlite = new SqliteDatabase(file);
      sqlite.pragma('journal_mode = WAL');
      // WAL + NORMAL: a commit is in the WAL (OS page cache) before it returns, so it survives a
      // process crash (SIGKILL); only an OS crash or power loss may lose the last commits.
      sqlite.pragma('synchronous = NORMAL');
      sqlite.pragma('foreign_keys = ON');
      sqlite.pragma('busy_timeout = 5000');
      const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
      store = new Store('sqlite', db, sqlite, null);
    } else {
      // Sized for a 2-core host: one event loop keeps a handful of short statements in flight, and
      // PostgreSQL on two cores gains nothing from more concurrent backends; several processes
      // (8 each, plus one LISTEN connection) stay far below the server's default max_connections.
      // Storage updates hold a connection while they wait for their endpoint's lock, so they are
      // queued per endpoint in the process first (see pgUpdateStorage).
      // loaded here, so a SQLite deployment does not carry the PostgreSQL driver in memory
      const { default: pgLib } = await import('pg');
      const pool = new pgLib.Pool({
        connectionString: url,
        application_name: 'mockyard',
        max: 8,
        connectionTimeoutMillis: 5000,
        idleTimeoutMillis: 30_000,
        keepAlive: true,
        // a transaction left open by a vanished client must not hold its locks for long
        idle_in_transaction_session_timeout: 10_000,
      });
      pool.on('error', () => {
        /* a broken idle client is dropped by the pool; queries report their own errors */
      });
      // A checked-out client whose connection breaks between two statements emits 'error' with no
      // pool listener attached; without this the process would crash instead of answering 503.
      pool.on('connect', (client) => client.on('error', () => {}));
      const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
      store = new Store('postgres', db, null, pool);
    }
    await store.migrate();
    await store.backfillSlugs();
    if (store.sqlite) store.hot = new SqliteHot(store.sqlite);
    return store;
  }

  /** Projects made before mock hosts existed get a slug (retried on the rare collision). */
  private async backfillSlugs(): Promise<void> {
    const rows = await this.db.selectFrom('projects').select(['id', 'name']).where('slug', 'is', null).execute();
    for (const r of rows) {
      await this.withFreshSlug(r.name, (slug) =>
        this.db.updateTable('projects').set({ slug }).where('id', '=', r.id).where('slug', 'is', null).execute(),
      );
    }
  }

  /** Runs `write` with a generated slug, again with another one if that slug was taken meanwhile. */
  private async withFreshSlug<T>(name: string, write: (slug: string) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await write(newSlug(name));
      } catch (e) {
        if (!isUniqueViolation(e) || attempt >= 5) throw e;
      }
    }
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  /** Raw pg pool (PostgreSQL only), for LISTEN/NOTIFY. */
  get pgPool(): pg.Pool | null {
    return this.pool;
  }

  /** Whether the database answers within `timeoutMs` (for /readyz: a hung database is not ready). */
  async ping(timeoutMs = 2000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        sql`SELECT 1`.execute(this.db).then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), timeoutMs);
        }),
      ]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  private async migrate(): Promise<void> {
    const all = migrations(this.dialect);
    await this.db.transaction().execute(async (trx) => {
      if (this.dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(727001)`.execute(trx);
      await sql`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`.execute(trx);
      const row = await trx.selectFrom('schema_version').select('version').executeTakeFirst();
      const current = row?.version ?? 0;
      if (!row) await trx.insertInto('schema_version').values({ version: 0 }).execute();
      for (let v = current; v < all.length; v++) {
        for (const stmt of all[v]) await sql.raw(stmt).execute(trx);
      }
      if (current < all.length) await trx.updateTable('schema_version').set({ version: all.length }).execute();
    });
  }

  private changed(projectId: string): void {
    this.emit('change', projectId);
  }

  private async bump(trx: Kysely<Database> | Transaction<Database>, projectId: string): Promise<void> {
    await trx.updateTable('projects').set({ version: sql<number>`version + 1` }).where('id', '=', projectId).execute();
  }

  // ---------------------------------------------------------------------------------------------
  // users and sessions

  async createUser(email: string, passwordHash: string): Promise<User> {
    const row = {
      id: newId(),
      email: email.toLowerCase(),
      password_hash: passwordHash,
      plan: 'free',
      created_at: nowIso(),
    };
    try {
      await this.db.insertInto('users').values(row).execute();
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError('conflict', 'That email is already registered');
      throw e;
    }
    return { id: row.id, email: row.email, plan: 'free', createdAt: row.created_at };
  }

  async findUserByEmail(email: string): Promise<UserWithHash | null> {
    const r = await this.db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
    return r ? toUser(r) : null;
  }

  async getUser(userId: string): Promise<User | null> {
    const r = await this.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    if (!r) return null;
    const { passwordHash: _omit, ...user } = toUser(r);
    return user;
  }

  async getUserWithHash(userId: string): Promise<UserWithHash | null> {
    const r = await this.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    return r ? toUser(r) : null;
  }

  async setPassword(userId: string, passwordHash: string): Promise<void> {
    await this.db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
  }

  async setPlan(userId: string, plan: Plan): Promise<User | null> {
    await this.db.updateTable('users').set({ plan }).where('id', '=', userId).execute();
    return this.getUser(userId);
  }

  async createSession(tokenHash: string, userId: string, expiresAt: Date): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({ token_hash: tokenHash, user_id: userId, created_at: nowIso(), expires_at: expiresAt.toISOString() })
      .execute();
  }

  /** The user of an unexpired session, or null. */
  async sessionUser(tokenHash: string): Promise<User | null> {
    const r = await this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select(['users.id', 'users.email', 'users.plan', 'users.created_at', 'sessions.expires_at'])
      .where('sessions.token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (!r || Date.parse(r.expires_at) <= Date.now()) return null;
    return { id: r.id, email: r.email, plan: r.plan as Plan, createdAt: r.created_at };
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
  }

  /** Revokes every session of the user except `keepTokenHash`. */
  async deleteOtherSessions(userId: string, keepTokenHash: string): Promise<void> {
    await this.db
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('token_hash', '!=', keepTokenHash)
      .execute();
  }

  // ---------------------------------------------------------------------------------------------
  // projects

  async listProjects(ownerId: string): Promise<Project[]> {
    const rows = await this.db
      .selectFrom('projects')
      .selectAll()
      .where('owner_id', '=', ownerId)
      .orderBy('seq')
      .execute();
    return rows.map(toProject);
  }

  async countProjects(ownerId: string): Promise<number> {
    const r = await this.db
      .selectFrom('projects')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('owner_id', '=', ownerId)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /**
   * Creates a project unless the owner already has `limit` projects. The count and the insert run
   * in one transaction under a lock on the owner's row (SQLite: the single writer), so concurrent
   * creates cannot pass the limit. A given slug that is taken is a 409; else one is generated.
   */
  async createProject(
    ownerId: string,
    input: { name: string; fallbackUrl?: string | null; slug?: string },
    limit = Number.POSITIVE_INFINITY,
  ): Promise<Project> {
    const at = nowIso();
    const base = {
      id: newId(),
      owner_id: ownerId,
      name: input.name,
      fallback_url: input.fallbackUrl ?? null,
      created_at: at,
      updated_at: at,
    };
    const insert = async (slug: string) => {
      await this.db.transaction().execute(async (trx) => {
        if (Number.isFinite(limit)) {
          if (this.dialect === 'postgres')
            await sql`SELECT id FROM users WHERE id = ${ownerId} FOR UPDATE`.execute(trx);
          const n = await trx
            .selectFrom('projects')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('owner_id', '=', ownerId)
            .executeTakeFirst();
          if (Number(n?.n ?? 0) >= limit) throw new AppError('limit_exceeded', `At most ${limit} projects per user`);
        }
        await trx
          .insertInto('projects')
          .values({ ...base, slug })
          .execute();
      });
      return slug;
    };
    let slug: string;
    if (input.slug !== undefined) {
      try {
        slug = await insert(input.slug);
      } catch (e) {
        if (isUniqueViolation(e)) throw new AppError('conflict', 'That slug is taken by another project');
        throw e;
      }
    } else {
      slug = await this.withFreshSlug(input.name, insert);
    }
    this.changed(base.id);
    return toProject({ ...base, slug, seq: 0, version: 1 });
  }

  /** The id of the project whose mock host is `slug` (mock traffic: no owner), or null. */
  async projectIdBySlug(slug: string): Promise<string | null> {
    const r = await this.db.selectFrom('projects').select('id').where('slug', '=', slug).executeTakeFirst();
    return r?.id ?? null;
  }

  async getProject(ownerId: string, projectId: string): Promise<Project | null> {
    const r = await this.db
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', projectId)
      .where('owner_id', '=', ownerId)
      .executeTakeFirst();
    return r ? toProject(r) : null;
  }

  async requireProject(ownerId: string, projectId: string): Promise<Project> {
    const p = await this.getProject(ownerId, projectId);
    if (!p) throw new AppError('not_found', 'No such project');
    return p;
  }

  async updateProject(
    ownerId: string,
    projectId: string,
    patch: { name?: string; fallbackUrl?: string | null; slug?: string },
  ): Promise<Project> {
    const set: {
      updated_at: string;
      name?: string;
      fallback_url?: string | null;
      slug?: string;
      version: RawBuilder<number>;
    } = {
      updated_at: nowIso(),
      version: sql<number>`version + 1`,
    };
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.fallbackUrl !== undefined) set.fallback_url = patch.fallbackUrl;
    if (patch.slug !== undefined) set.slug = patch.slug;
    let res: { numUpdatedRows: bigint };
    try {
      res = await this.db
        .updateTable('projects')
        .set(set)
        .where('id', '=', projectId)
        .where('owner_id', '=', ownerId)
        .executeTakeFirst();
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError('conflict', 'That slug is taken by another project');
      throw e;
    }
    if (Number(res.numUpdatedRows) === 0) throw new AppError('not_found', 'No such project');
    this.changed(projectId);
    return this.requireProject(ownerId, projectId);
  }

  async deleteProject(ownerId: string, projectId: string): Promise<void> {
    const res = await this.db
      .deleteFrom('projects')
      .where('id', '=', projectId)
      .where('owner_id', '=', ownerId)
      .executeTakeFirst();
    if (Number(res.numDeletedRows) === 0) throw new AppError('not_found', 'No such project');
    this.changed(projectId);
  }

  // ---------------------------------------------------------------------------------------------
  // endpoints

  async listEndpoints(ownerId: string, projectId: string): Promise<Endpoint[]> {
    await this.requireProject(ownerId, projectId);
    const rows = await this.db
      .selectFrom('endpoints')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('seq')
      .execute();
    return rows.map(toEndpoint);
  }

  async countEndpoints(projectId: string): Promise<number> {
    const r = await this.db
      .selectFrom('endpoints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /**
   * Creates an endpoint unless the project already has `limit`: counted in the inserting
   * transaction under a lock on the project's row, so concurrent creates cannot pass the limit.
   */
  async createEndpoint(
    ownerId: string,
    projectId: string,
    e: NewEndpoint,
    limit = Number.POSITIVE_INFINITY,
  ): Promise<Endpoint> {
    await this.requireProject(ownerId, projectId);
    const at = nowIso();
    const row = {
      id: newId(),
      project_id: projectId,
      method: e.method,
      path: e.path,
      route_key: e.routeKey,
      status_code: e.statusCode,
      response_body: e.responseBody,
      content_type: e.contentType,
      created_at: at,
      updated_at: at,
    };
    try {
      await this.db.transaction().execute(async (trx) => {
        if (Number.isFinite(limit)) {
          if (this.dialect === 'postgres')
            await sql`SELECT id FROM projects WHERE id = ${projectId} FOR UPDATE`.execute(trx);
          const n = await trx
            .selectFrom('endpoints')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('project_id', '=', projectId)
            .executeTakeFirst();
          if (Number(n?.n ?? 0) >= limit)
            throw new AppError('limit_exceeded', `At most ${limit} endpoints per project`);
        }
        await trx.insertInto('endpoints').values(row).execute();
        await this.bump(trx, projectId);
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError('conflict', 'An endpoint with this method and path already exists');
      throw e;
    }
    this.changed(projectId);
    return toEndpoint({ ...row, seq: 0 });
  }

  async getEndpoint(ownerId: string, projectId: string, endpointId: string): Promise<Endpoint | null> {
    const r = await this.db
      .selectFrom('endpoints')
      .innerJoin('projects', 'projects.id', 'endpoints.project_id')
      .selectAll('endpoints')
      .where('endpoints.id', '=', endpointId)
      .where('endpoints.project_id', '=', projectId)
      .where('projects.owner_id', '=', ownerId)
      .executeTakeFirst();
    return r ? toEndpoint(r) : null;
  }

  async requireEndpoint(ownerId: string, projectId: string, endpointId: string): Promise<Endpoint> {
    const e = await this.getEndpoint(ownerId, projectId, endpointId);
    if (!e) throw new AppError('not_found', 'No such endpoint');
    return e;
  }

  async updateEndpoint(ownerId: string, projectId: string, endpointId: string, next: NewEndpoint): Promise<Endpoint> {
    await this.requireEndpoint(ownerId, projectId, endpointId);
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('endpoints')
          .set({
            method: next.method,
            path: next.path,
            route_key: next.routeKey,
            status_code: next.statusCode,
            response_body: next.responseBody,
            content_type: next.contentType,
            updated_at: nowIso(),
          })
          .where('id', '=', endpointId)
          .where('project_id', '=', projectId)
          .execute();
        await this.bump(trx, projectId);
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError('conflict', 'An endpoint with this method and path already exists');
      throw e;
    }
    this.changed(projectId);
    return this.requireEndpoint(ownerId, projectId, endpointId);
  }

  async deleteEndpoint(ownerId: string, projectId: string, endpointId: string): Promise<void> {
    await this.requireEndpoint(ownerId, projectId, endpointId);
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('endpoints').where('id', '=', endpointId).where('project_id', '=', projectId).execute();
      await this.bump(trx, projectId);
    });
    this.changed(projectId);
  }

  // ---------------------------------------------------------------------------------------------
  // rules

  private async hitsOf(ruleIds: string[], session = ''): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (ruleIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('rule_hits')
      .select(['rule_id', 'hits'])
      .where('rule_id', 'in', ruleIds)
      .where('session', '=', session)
      .execute();
    for (const r of rows) out.set(r.rule_id, Number(r.hits));
    return out;
  }

  async listRules(ownerId: string, projectId: string, endpointId: string, session = ''): Promise<RuleRecord[]> {
    await this.requireEndpoint(ownerId, projectId, endpointId);
    const rows = await this.db
      .selectFrom('rules')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .orderBy('priority')
      .orderBy('seq')
      .execute();
    const hits = await this.hitsOf(
      rows.map((r) => r.id),
      session,
    );
    return rows.map((r) => toRule(r, hits.get(r.id) ?? 0));
  }

  async countRules(endpointId: string): Promise<number> {
    const r = await this.db
      .selectFrom('rules')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /**
   * Creates a rule unless the endpoint already has `limit` rules. The count and the insert run in
   * one transaction under a lock on the endpoint row, so concurrent creates cannot pass the limit.
   */
  async createRule(
    ownerId: string,
    projectId: string,
    endpointId: string,
    f: RuleFields,
    limit: number,
  ): Promise<RuleRecord> {
    await this.requireEndpoint(ownerId, projectId, endpointId);
    const at = nowIso();
    const row = {
      id: newId(),
      endpoint_id: endpointId,
      project_id: projectId,
      name: f.name,
      priority: f.priority,
      active: this.dialect === 'sqlite' ? (f.active ? 1 : 0) : f.active,
      conditions: JSON.stringify(f.conditions),
      response: f.response === null ? null : JSON.stringify(f.response),
      actions: JSON.stringify(f.actions),
      created_at: at,
      updated_at: at,
    };
    await this.db.transaction().execute(async (trx) => {
      if (this.dialect === 'postgres') {
        await sql`SELECT id FROM endpoints WHERE id = ${endpointId} FOR UPDATE`.execute(trx);
      }
      const n = await trx
        .selectFrom('rules')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('endpoint_id', '=', endpointId)
        .executeTakeFirst();
      if (Number(n?.n ?? 0) >= limit) {
        throw new AppError('plan_limit_exceeded', `Your plan allows ${limit} rules per endpoint`);
      }
      await trx.insertInto('rules').values(row).execute();
      await this.bump(trx, projectId);
    });
    this.changed(projectId);
    return toRule({ ...row, seq: 0 }, 0);
  }

  async getRule(
    ownerId: string,
    projectId: string,
    endpointId: string,
    ruleId: string,
    session = '',
  ): Promise<RuleRecord | null> {
    const r = await this.db
      .selectFrom('rules')
      .innerJoin('projects', 'projects.id', 'rules.project_id')
      .selectAll('rules')
      .where('rules.id', '=', ruleId)
      .where('rules.endpoint_id', '=', endpointId)
      .where('rules.project_id', '=', projectId)
      .where('projects.owner_id', '=', ownerId)
      .executeTakeFirst();
    if (!r) return null;
    const hits = await this.hitsOf([r.id], session);
    return toRule(r, hits.get(r.id) ?? 0);
  }

  async requireRule(
    ownerId: string,
    projectId: string,
    endpointId: string,
    ruleId: string,
    session = '',
  ): Promise<RuleRecord> {
    const r = await this.getRule(ownerId, projectId, endpointId, ruleId, session);
    if (!r) throw new AppError('not_found', 'No such rule');
    return r;
  }

  async updateRule(
    ownerId: string,
    projectId: string,
    endpointId: string,
    ruleId: string,
    f: RuleFields,
    resetSequence: boolean,
  ): Promise<RuleRecord> {
    await this.requireRule(ownerId, projectId, endpointId, ruleId);
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('rules')
        .set({
          name: f.name,
          priority: f.priority,
          active: this.dialect === 'sqlite' ? (f.active ? 1 : 0) : f.active,
          conditions: JSON.stringify(f.conditions),
          response: f.response === null ? null : JSON.stringify(f.response),
          actions: JSON.stringify(f.actions),
          updated_at: nowIso(),
        })
        .where('id', '=', ruleId)
        .execute();
      if (resetSequence) await trx.deleteFrom('rule_hits').where('rule_id', '=', ruleId).execute();
      await this.bump(trx, projectId);
    });
    this.changed(projectId);
    return this.requireRule(ownerId, projectId, endpointId, ruleId);
  }

  /** Resets the sequence of a rule: for one session, or (session undefined) for every session. */
  async resetRule(
    ownerId: string,
    projectId: string,
    endpointId: string,
    ruleId: string,
    session?: string,
  ): Promise<RuleRecord> {
    await this.requireRule(ownerId, projectId, endpointId, ruleId);
    let q = this.db.deleteFrom('rule_hits').where('rule_id', '=', ruleId);
    if (session !== undefined) q = q.where('session', '=', session);
    await q.execute();
    this.changed(projectId);
    return this.requireRule(ownerId, projectId, endpointId, ruleId, session ?? '');
  }

  async deleteRule(ownerId: string, projectId: string, endpointId: string, ruleId: string): Promise<void> {
    await this.requireRule(ownerId, projectId, endpointId, ruleId);
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('rules').where('id', '=', ruleId).execute();
      await this.bump(trx, projectId);
    });
    this.changed(projectId);
  }

  // ---------------------------------------------------------------------------------------------
  // endpoint storage (values written by store_variable actions)

  async getStorage(
    ownerId: string,
    projectId: string,
    endpointId: string,
    session = '',
  ): Promise<Record<string, string>> {
    await this.requireEndpoint(ownerId, projectId, endpointId);
    const rows = await this.db
      .selectFrom('storage')
      .select(['name', 'value'])
      .where('endpoint_id', '=', endpointId)
      .where('session', '=', session)
      .orderBy('name')
      .execute();
    const out: Record<string, string> = Object.create(null);
    for (const r of rows) out[r.name] = r.value;
    return out;
  }

  /** Empties the storage of one session, or (session undefined) of every session. */
  async clearStorage(ownerId: string, projectId: string, endpointId: string, session?: string): Promise<void> {
    await this.requireEndpoint(ownerId, projectId, endpointId);
    let q = this.db.deleteFrom('storage').where('endpoint_id', '=', endpointId);
    if (session !== undefined) q = q.where('session', '=', session);
    await q.execute();
    this.changed(projectId);
  }

  /** Sessions seen on an endpoint (by hit counters or storage), most recently used first. */
  async listSessions(
    ownerId: string,
    projectId: string,
    endpointId: string,
  ): Promise<{ session: string; lastSeen: string }[]> {
    await this.requireEndpoint(ownerId, projectId, endpointId);
    const rows = await sql<{ session: string; touched: number | string }>`
      SELECT session, MAX(touched) AS touched FROM (
        SELECT h.session AS session, h.touched_at AS touched FROM rule_hits h JOIN rules r ON r.id = h.rule_id
          WHERE r.endpoint_id = ${endpointId} AND h.session <> ''
        UNION ALL
        SELECT session, touched_at AS touched FROM storage WHERE endpoint_id = ${endpointId} AND session <> ''
      ) s GROUP BY session ORDER BY MAX(touched) DESC`.execute(this.db);
    return rows.rows.map((r) => ({ session: r.session, lastSeen: new Date(Number(r.touched)).toISOString() }));
  }

  /** Forgets sessions idle for longer than `idleMs` (their counters and storage). */
  async expireSessions(idleMs: number): Promise<void> {
    const before = Date.now() - idleMs;
    await this.db.deleteFrom('rule_hits').where('session', '<>', '').where('touched_at', '<', before).execute();
    await this.db.deleteFrom('storage').where('session', '<>', '').where('touched_at', '<', before).execute();
  }

  /** Forgets one mock session of a project: its sequence positions and stored values. */
  async forgetSession(projectId: string, session: string): Promise<void> {
    if (session === '') return;
    await this.db
      .deleteFrom('rule_hits')
      .where('session', '=', session)
      .where('rule_id', 'in', (eb) => eb.selectFrom('rules').select('id').where('project_id', '=', projectId))
      .execute();
    await this.db
      .deleteFrom('storage')
      .where('session', '=', session)
      .where('endpoint_id', 'in', (eb) => eb.selectFrom('endpoints').select('id').where('project_id', '=', projectId))
      .execute();
  }

  /**
   * Holds every project to at most `cap` mock sessions in the database, forgetting the least
   * recently used beyond it (the sweep behind SessionTracker, for several processes). Answers how
   * many sessions were forgotten.
   */
  async trimSessions(cap: number): Promise<number> {
    const over = await sql<{ project_id: string; session: string }>`
      WITH s AS (
        SELECT r.project_id AS project_id, h.session AS session, h.touched_at AS touched
          FROM rule_hits h JOIN rules r ON r.id = h.rule_id WHERE h.session <> ''
        UNION ALL
        SELECT e.project_id AS project_id, st.session AS session, st.touched_at AS touched
          FROM storage st JOIN endpoints e ON e.id = st.endpoint_id WHERE st.session <> ''
      ), g AS (SELECT project_id, session, MAX(touched) AS touched FROM s GROUP BY project_id, session),
      ranked AS (
        SELECT project_id, session, ROW_NUMBER() OVER (PARTITION BY project_id ORDER BY touched DESC, session) AS n FROM g
      )
      SELECT project_id, session FROM ranked WHERE n > ${cap}`.execute(this.db);
    for (const r of over.rows) await this.forgetSession(r.project_id, r.session);
    return over.rows.length;
  }

  // ---------------------------------------------------------------------------------------------
  // mock runtime (public by project id: no owner)

  async loadProjectConfig(projectId: string): Promise<ProjectConfig | null> {
    const p = await this.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst();
    if (!p) return null;
    const endpoints = await this.db
      .selectFrom('endpoints')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('seq')
      .execute();
    const rules = await this.db
      .selectFrom('rules')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('priority')
      .orderBy('seq')
      .execute();
    return {
      project: toProject(p),
      version: Number(p.version),
      endpoints: endpoints.map(toEndpoint),
      rules: rules.map((r) => toRule(r, 0)),
    };
  }

  /** Project versions, to find snapshots that missed a change notification. */
  async projectVersions(projectIds: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (projectIds.length === 0) return out;
    const rows = await this.db.selectFrom('projects').select(['id', 'version']).where('id', 'in', projectIds).execute();
    for (const r of rows) out.set(r.id, Number(r.version));
    return out;
  }

  async projectVersion(projectId: string): Promise<number | null> {
    const r = await this.db.selectFrom('projects').select('version').where('id', '=', projectId).executeTakeFirst();
    return r ? Number(r.version) : null;
  }

  /**
   * Counts one more hit of a rule (in a session) and answers the new count: one atomic statement,
   * so sequences are exact under any concurrency and on any number of processes.
   */
  hotHit(ruleId: string, session: string): number | Promise<number> {
    if (this.hot) return this.hot.hit(ruleId, session);
    const p = joinHitGroup(this.pgHits, ruleId, session);
    if (!this.pgHitsScheduled) {
      this.pgHitsScheduled = true;
      setImmediate(() => void this.flushPgHits());
    }
    return p;
  }

  /** Hits asked for in this event-loop turn, by rule and session (PostgreSQL). */
  private pgHits = new Map<string, HitGroup>();
  private pgHitsScheduled = false;

  /**
   * PostgreSQL group commit of hit counters: one statement adds each rule's hits of this turn
   * (`hits = hits + k`) and returns the new total, so the k requests get the k numbers that end
   * at it — a contiguous range, still exact across processes, for one commit instead of k.
   */
  private async flushPgHits(): Promise<void> {
    const groups = [...this.pgHits.values()];
    this.pgHits = new Map();
    this.pgHitsScheduled = false;
    const run = async (batch: typeof groups) => {
      const r = await this.pool!.query(
        `INSERT INTO rule_hits (rule_id, session, hits, touched_at)
         SELECT t.r, t.s, t.c, $4 FROM unnest($1::text[], $2::text[], $3::int[]) AS t(r, s, c)
         ON CONFLICT (rule_id, session) DO UPDATE SET hits = rule_hits.hits + EXCLUDED.hits, touched_at = EXCLUDED.touched_at
         RETURNING rule_id, session, hits`,
        [batch.map((g) => g.ruleId), batch.map((g) => g.session), batch.map((g) => g.waiters.length), Date.now()],
      );
      const totals = new Map<string, number>();
      for (const row of r.rows as { rule_id: string; session: string; hits: string | number }[]) {
        totals.set(hitKey(row.rule_id, row.session), Number(row.hits));
      }
      for (const g of batch) {
        const total = totals.get(hitKey(g.ruleId, g.session));
        if (total === undefined) throw new Error('hit counter row missing');
        settleHitGroup(g, total);
      }
    };
    try {
      await run(groups);
    } catch {
      // e.g. one rule was deleted meanwhile (foreign key): count each rule on its own
      for (const g of groups) {
        await run([g]).catch((err) => {
          for (const w of g.waiters) w.reject(err);
        });
      }
    }
  }

  hotStorage(endpointId: string, session: string): Map<string, string> | Promise<Map<string, string>> {
    if (this.hot) return this.hot.storage(endpointId, session);
    return this.pool!.query('SELECT name, value FROM storage WHERE endpoint_id = $1 AND session = $2', [
      endpointId,
      session,
    ]).then((r) => new Map(r.rows.map((x: { name: string; value: string }) => [x.name, x.value])));
  }

  /**
   * Reads the endpoint's storage, lets `write` compute values from it, and stores them, atomically
   * with respect to every other writer of that endpoint's storage (an append or counter pattern
   * loses nothing). On SQLite `write` runs inside the group commit (one transaction, synchronous
   * in this process); on PostgreSQL under a transaction-scoped advisory lock on the endpoint.
   */
  hotUpdateStorage(
    endpointId: string,
    session: string,
    write: (current: Map<string, string>) => [string, string][],
  ): Map<string, string> | Promise<Map<string, string>> {
    if (this.hot) return this.hot.update(endpointId, session, write);
    return this.pgUpdateStorage(endpointId, session, write);
  }

  /** Tail of the queue of storage updates per endpoint and session in this process. */
  private readonly storageQueues = new Map<string, Promise<unknown>>();

  /**
   * Updates of one endpoint's storage are queued in the process, so at most one pooled connection
   * per endpoint waits for the cross-process advisory lock and a hot endpoint cannot take the
   * whole pool from the rest of the traffic.
   */
  private pgUpdateStorage(
    endpointId: string,
    session: string,
    write: (current: Map<string, string>) => [string, string][],
  ): Promise<Map<string, string>> {
    const key = `storage:${endpointId}:${session}`;
    const before = this.storageQueues.get(key) ?? Promise.resolve();
    const mine = before.then(
      () => this.pgUpdateStorageLocked(key, endpointId, session, write),
      () => this.pgUpdateStorageLocked(key, endpointId, session, write),
    );
    this.storageQueues.set(key, mine);
    const forget = () => {
      if (this.storageQueues.get(key) === mine) this.storageQueues.delete(key);
    };
    mine.then(forget, forget);
    return mine;
  }

  private async pgUpdateStorageLocked(
    key: string,
    endpointId: string,
    session: string,
    write: (current: Map<string, string>) => [string, string][],
  ): Promise<Map<string, string>> {
    const client = await this.pool!.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
      const r = await client.query('SELECT name, value FROM storage WHERE endpoint_id = $1 AND session = $2', [
        endpointId,
        session,
      ]);
      const current = new Map<string, string>(r.rows.map((x: { name: string; value: string }) => [x.name, x.value]));
      const now = Date.now();
      for (const [name, value] of write(current)) {
        await client.query(
          `INSERT INTO storage (endpoint_id, session, name, value, touched_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (endpoint_id, session, name) DO UPDATE SET value = EXCLUDED.value, touched_at = EXCLUDED.touched_at`,
          [endpointId, session, name, value, now],
        );
        current.set(name, value);
      }
      await client.query('COMMIT');
      return current;
    } catch (e) {
      // a client that cannot even roll back is discarded, not given back to the pool
      await client.query('ROLLBACK').catch((err: Error) => {
        broken = err;
      });
      throw e;
    } finally {
      client.release(broken);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // request log

  async appendLog(entries: { projectId: string; entry: RequestLogEntry }[]): Promise<void> {
    if (entries.length === 0) return;
    if (this.hot) {
      this.hot.appendLog(entries);
      return;
    }
    // one statement for the whole batch; entries of a project deleted meanwhile are dropped
    await this.pool!.query(
      `INSERT INTO request_log (id, project_id, at, entry)
       SELECT t.id, t.project_id, t.at, t.entry
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS t(id, project_id, at, entry, n)
       WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = t.project_id) ORDER BY t.n`,
      [
        entries.map((e) => e.entry.id),
        entries.map((e) => e.projectId),
        entries.map((e) => e.entry.at),
        entries.map((e) => JSON.stringify(e.entry)),
      ],
    );
  }

  /** Keeps the newest `keep` entries of a project. */
  async trimLog(projectId: string, keep: number): Promise<void> {
    await sql`DELETE FROM request_log WHERE project_id = ${projectId} AND seq <= (
      SELECT seq FROM request_log WHERE project_id = ${projectId} ORDER BY seq DESC LIMIT 1 OFFSET ${keep})`.execute(
      this.db,
    );
  }

  async listLog(
    ownerId: string,
    projectId: string,
    limit: number,
    afterSeq?: number,
  ): Promise<(RequestLogEntry & { seq: number })[]> {
    await this.requireProject(ownerId, projectId);
    let q = this.db.selectFrom('request_log').select(['seq', 'entry']).where('project_id', '=', projectId);
    if (afterSeq !== undefined) q = q.where('seq', '>', afterSeq);
    const rows = await q.orderBy('seq', 'desc').limit(limit).execute();
    return rows.map((r) => ({ ...(JSON.parse(r.entry) as RequestLogEntry), seq: Number(r.seq) }));
  }

  /**
   * Entries of any project newer than `afterSeq`, plus those with a sequence number in `alsoSeqs`
   * (for cross-process streaming: gaps below `afterSeq` that a slower transaction may still fill).
   */
  async logSince(
    afterSeq: number,
    limit: number,
    alsoSeqs: number[] = [],
  ): Promise<{ seq: number; projectId: string; entry: RequestLogEntry }[]> {
    const rows = await this.db
      .selectFrom('request_log')
      .select(['seq', 'project_id', 'entry'])
      .where((eb) =>
        alsoSeqs.length > 0 ? eb.or([eb('seq', '>', afterSeq), eb('seq', 'in', alsoSeqs)]) : eb('seq', '>', afterSeq),
      )
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ seq: Number(r.seq), projectId: r.project_id, entry: JSON.parse(r.entry) }));
  }

  async maxLogSeq(): Promise<number> {
    const r = await this.db
      .selectFrom('request_log')
      .select((eb) => eb.fn.max('seq').as('m'))
      .executeTakeFirst();
    return Number(r?.m ?? 0);
  }
}

const LOG_CHUNK = 64;

/** The requests of one event-loop turn that count a hit of one rule in one session. */
interface HitGroup {
  ruleId: string;
  session: string;
  waiters: { resolve: (n: number) => void; reject: (e: unknown) => void }[];
}

const hitKey = (ruleId: string, session: string) => `${ruleId}\u0000${session}`;

/** Adds a hit group to `groups` (keyed by rule and session) and returns the waiter's promise. */
function joinHitGroup(groups: Map<string, HitGroup>, ruleId: string, session: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const key = hitKey(ruleId, session);
    let group = groups.get(key);
    if (!group) {
      group = { ruleId, session, waiters: [] };
      groups.set(key, group);
    }
    group.waiters.push({ resolve, reject });
  });
}

/** The group's hits were added and the counter is now `total`: its waiters get the last n counts, in order. */
function settleHitGroup(group: HitGroup, total: number): void {
  const first = total - group.waiters.length + 1;
  for (let i = 0; i < group.waiters.length; i++) group.waiters[i].resolve(first + i);
}

/** Prepared statements for the SQLite hot path (synchronous: atomic within the process). */
class SqliteHot {
  private readonly hitStmt: SqliteDatabase.Statement;
  private readonly readStmt: SqliteDatabase.Statement;
  private readonly upsertStmt: SqliteDatabase.Statement;
  private readonly logStmt: SqliteDatabase.Statement;
  readonly appendLog: (entries: { projectId: string; entry: RequestLogEntry }[]) => void;
  private pending: { op: () => unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void }[] = [];
  /** hits of this turn, by rule and session: one statement per rule and session adds them all */
  private hits = new Map<string, HitGroup>();
  private scheduled = false;
  private readonly groupTx: (body: () => void) => void;
  private readonly savepoint: <T>(op: () => T) => T;
  private readonly updateTx: (
    endpointId: string,
    session: string,
    write: (current: Map<string, string>) => [string, string][],
  ) => Map<string, string>;

  constructor(db: SqliteDatabase.Database) {
    this.hitStmt = db.prepare(
      `INSERT INTO rule_hits (rule_id, session, hits, touched_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (rule_id, session) DO UPDATE SET hits = hits + excluded.hits, touched_at = excluded.touched_at
       RETURNING hits`,
    );
    this.readStmt = db.prepare('SELECT name, value FROM storage WHERE endpoint_id = ? AND session = ?');
    this.upsertStmt = db.prepare(
      `INSERT INTO storage (endpoint_id, session, name, value, touched_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (endpoint_id, session, name) DO UPDATE SET value = excluded.value, touched_at = excluded.touched_at`,
    );
    // A batch is written 64 rows per statement; rows of a project deleted meanwhile are dropped.
    const rows = (n: number) =>
      db.prepare(
        `INSERT INTO request_log (id, project_id, at, entry)
         SELECT column1, column2, column3, column4 FROM (VALUES ${Array(n).fill('(?, ?, ?, ?)').join(', ')})
         WHERE column2 IN (SELECT id FROM projects)`,
      );
    this.logStmt = rows(1);
    const logChunk = rows(LOG_CHUNK);
    this.appendLog = db.transaction((entries: { projectId: string; entry: RequestLogEntry }[]) => {
      const args = (list: typeof entries) =>
        list.flatMap(({ projectId, entry }) => [entry.id, projectId, entry.at, JSON.stringify(entry)]);
      let i = 0;
      for (; i + LOG_CHUNK <= entries.length; i += LOG_CHUNK) logChunk.run(args(entries.slice(i, i + LOG_CHUNK)));
      for (; i < entries.length; i++) this.logStmt.run(args([entries[i]]));
    });
    this.groupTx = db.transaction((body: () => void) => body());
    this.savepoint = db.transaction(<T>(op: () => T): T => op()) as <T>(op: () => T) => T;
    this.updateTx = db.transaction((endpointId: string, session: string, write) => {
      const current = this.storage(endpointId, session);
      const now = Date.now();
      for (const [name, value] of write(current)) {
        this.upsertStmt.run(endpointId, session, name, value, now);
        current.set(name, value);
      }
      return current;
    });
  }

  /**
   * Group commit: the writes that requests of one event-loop turn ask for run together in one
   * transaction at the end of the turn (each in a savepoint of its own, so one failing write
   * fails alone), and each request gets its result — and so sends its answer — only after that
   * commit. Exactly as durable as a commit per request, for a fraction of the cost under load.
   * Hits of one rule and session in one turn are added by one statement: n concurrent requests
   * get the n consecutive counts, in the order they asked.
   */
  private enqueue<T>(op: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ op, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.commitGroup());
    }
  }

  private commitGroup(): void {
    const ops = this.pending;
    const hits = [...this.hits.values()];
    this.pending = [];
    this.hits = new Map();
    this.scheduled = false;
    const results: { ok: boolean; value: unknown }[] = [];
    try {
      this.groupTx(() => {
        for (const { op } of ops) {
          try {
            results.push({ ok: true, value: this.savepoint(op) });
          } catch (err) {
            results.push({ ok: false, value: err });
          }
        }
        const now = Date.now();
        for (const g of hits) {
          try {
            const row = this.savepoint(() => this.hitStmt.get(g.ruleId, g.session, g.waiters.length, now));
            results.push({ ok: true, value: Number((row as { hits: number }).hits) });
          } catch (err) {
            results.push({ ok: false, value: err });
          }
        }
      });
    } catch (err) {
      for (const o of ops) o.reject(err);
      for (const g of hits) for (const w of g.waiters) w.reject(err);
      return;
    }
    for (let i = 0; i < ops.length; i++) {
      if (results[i].ok) ops[i].resolve(results[i].value);
      else ops[i].reject(results[i].value);
    }
    for (let j = 0; j < hits.length; j++) {
      const { ok, value } = results[ops.length + j];
      if (ok) settleHitGroup(hits[j], value as number);
      else for (const w of hits[j].waiters) w.reject(value);
    }
  }

  hit(ruleId: string, session: string): Promise<number> {
    const p = joinHitGroup(this.hits, ruleId, session);
    this.schedule();
    return p;
  }

  storage(endpointId: string, session: string): Map<string, string> {
    const rows = this.readStmt.all(endpointId, session) as { name: string; value: string }[];
    return new Map(rows.map((r) => [r.name, r.value]));
  }

  update(
    endpointId: string,
    session: string,
    write: (current: Map<string, string>) => [string, string][],
  ): Promise<Map<string, string>> {
    return this.enqueue(() => this.updateTx(endpointId, session, write));
  }
}
