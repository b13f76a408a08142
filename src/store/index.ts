/**
 * The store: persistence on SQLite (better-sqlite3) or PostgreSQL (pg) through one Kysely
 * codebase. `openStore(url)` is the only place a database is chosen; everything else asks the
 * dialect's capabilities (dialect.ts). One aggregate per file, each reached as a field:
 * `store.projects.create(…)`. Every aggregate method that reads or writes user data takes the
 * owner's id first and filters on it. The mock hot path uses `store.hot` (HotState), which takes
 * no owner (the mock URL is public) and is keyed by ids from the compiled snapshot.
 *
 * Events: 'change' (projectId) whenever a project's mock configuration or state changed.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type pg from 'pg';
import { ApiKeys } from './api-keys.js';
import { Attempts } from './attempts.js';
import { Collections } from './collections.js';
import { Contracts } from './contracts.js';
import { StoreCore } from './core.js';
import { type DialectCaps, POSTGRES, SQLITE } from './dialect.js';
import { Endpoints } from './endpoints.js';
import type { HotState, ProblemReport } from './hot/hot-state.js';
import { PostgresHot } from './hot/postgres.js';
import { SqliteHot } from './hot/sqlite.js';
import { LogEntries } from './log-entries.js';
import { LoginTokens } from './login-tokens.js';
import { migrate } from './migrations/index.js';
import { MockConfig } from './mock-config.js';
import { MockSessions } from './mock-sessions.js';
import { Projects } from './projects.js';
import { Rules } from './rules.js';
import type { Database } from './schema.js';
import { Storage } from './storage.js';
import { Users } from './users.js';
import { WalCheckpoints, type WalCheckpointsOptions } from './wal-checkpoints.js';

/** The WAL's length, in pages, at which the checkpoints' cycle copies all of it (wal-checkpoints.ts). */
const WAL_RESTART_AT = 4000;

export type { ProjectConfig } from './mock-config.js';
export type { UserWithHash } from './rows.js';

export class Store extends EventEmitter {
  readonly users: Users;
  readonly loginTokens: LoginTokens;
  readonly projects: Projects;
  readonly endpoints: Endpoints;
  readonly rules: Rules;
  readonly storage: Storage;
  readonly mockSessions: MockSessions;
  readonly logs: LogEntries;
  readonly mockConfig: MockConfig;
  readonly collections: Collections;
  readonly apiKeys: ApiKeys;
  readonly attempts: Attempts;
  readonly contracts: Contracts;
  private hotState: HotState | null = null;

  constructor(
    readonly db: Kysely<Database>,
    readonly dialect: DialectCaps,
    /** makes the hot state, handing it how to report a failure it recovers from (`'problem'`) */
    private readonly makeHot: (report: ProblemReport) => HotState,
    /** the pg pool (PostgreSQL only), for LISTEN/NOTIFY */
    readonly pgPool: pg.Pool | null = null,
    /** what else closes with the store, before the database */
    private readonly closing: (() => Promise<void>) | null = null,
  ) {
    super();
    this.setMaxListeners(0);
    const core = new StoreCore(db, dialect, this);
    this.users = new Users(core);
    this.loginTokens = new LoginTokens(core);
    this.projects = new Projects(core);
    this.endpoints = new Endpoints(core, this.projects);
    this.rules = new Rules(core, this.endpoints);
    this.storage = new Storage(core, this.endpoints, this.projects);
    this.mockSessions = new MockSessions(core, this.endpoints);
    this.logs = new LogEntries(core, this.projects);
    this.mockConfig = new MockConfig(core);
    this.collections = new Collections(core, this.projects, () => this.hot);
    this.apiKeys = new ApiKeys(core);
    this.attempts = new Attempts(core);
    this.contracts = new Contracts(core, this.projects);
  }

  /** The mock hot path's state (made once the schema is up to date: its statements are prepared). */
  get hot(): HotState {
    this.hotState ??= this.makeHot((where, err) => this.emit('problem', where, err));
    return this.hotState;
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

  async close(): Promise<void> {
    await this.closing?.();
    await this.db.destroy();
  }
}

/** What the tests may set of the store's SQLite checkpoints (wal-checkpoints.ts): how files are synced. */
export type StoreOptions = { checkpoints?: Pick<WalCheckpointsOptions, 'sync'> };

function openSqlite(file: string, opts: StoreOptions): Store {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  // WAL + NORMAL: a commit is in the WAL (OS page cache) before it returns, so it survives a
  // process crash (SIGKILL); only an OS crash or power loss may lose the last commits.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // SQLite's own default page cache (2 MiB), not better-sqlite3's 16 MiB: answers come from the
  // in-memory hot state, so the cache serves writes and rare reads, and pages it drops stay in the
  // OS page cache. A large store filled the 16 MiB with pages malloc'd on the main heap (deploy.md).
  sqlite.pragma('cache_size = -2000');
  // A merge of the creates' journal runs in a savepoint (hot/sqlite.ts), which keeps a copy of each
  // page it changes: past 64 KiB SQLite spilled those to a temporary file, a third of what a create
  // wrote (store-creates.mjs: 2.6 -> 1.8 KB and ~0.4 µs a create). Kept in memory, as any sort that
  // outgrows the page cache: the largest is a merge's, held under MERGE_CHARS (docs/architecture.md).
  // Set before the hot state's temporary trigger (a change of it drops temporary objects).
  sqlite.pragma('temp_store = MEMORY');
  // Checkpoints run beside the commits, their syncs off the event loop (wal-checkpoints.ts): a WAL
  // of 4000 pages is copied into the database by the cycle there, and SQLite's own checkpoint (run by
  // the commit that crosses its mark, syncs and all) is left as the backstop at four times that.
  // Since the creates' journal (0021) a create writes ~1 KB of WAL (docs/architecture.md).
  sqlite.pragma(`wal_autocheckpoint = ${4 * WAL_RESTART_AT}`);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  const memory = file === ':memory:';
  // the checkpoints report through the store, which closes them
  const store: Store = new Store(
    db,
    SQLITE,
    (report) => new SqliteHot(sqlite, report),
    null,
    memory ? null : () => checkpoints?.close() ?? Promise.resolve(),
  );
  const checkpoints = memory
    ? null
    : new WalCheckpoints(sqlite, file, {
        ...opts.checkpoints,
        restartAt: WAL_RESTART_AT,
        report: (where, err) => store.emit('problem', where, err),
      });
  return store;
}

async function openPostgres(url: string): Promise<Store> {
  // loaded here, so a SQLite deployment does not carry the PostgreSQL driver in memory
  const { default: pgLib } = await import('pg');
  // Sized for a 2-core host: one event loop keeps a handful of short statements in flight, and
  // PostgreSQL on two cores gains nothing from more concurrent backends; several processes (8
  // each, plus one LISTEN connection) stay far below the server's default max_connections.
  // Storage updates hold a connection while they wait for their endpoint's lock, so they are
  // queued per endpoint in the process first (hot/postgres.ts).
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
  return new Store(db, POSTGRES, () => new PostgresHot(pool), pool);
}

/**
 * Opens the database named by `url` (`sqlite:<file>`, `sqlite::memory:`, `postgres://…`), brings
 * its schema up to date, and gives projects made before mock hosts their slug.
 */
export async function openStore(url: string, opts: StoreOptions = {}): Promise<Store> {
  const store = url.startsWith('sqlite:') ? openSqlite(url.slice('sqlite:'.length), opts) : await openPostgres(url);
  try {
    await migrate(store.db as unknown as Kysely<unknown>, store.dialect);
    await store.projects.backfillSlugs();
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
  return store;
}
