/**
 * The schema as Kysely migrations, run by Kysely's Migrator when the store opens (with its
 * migration lock: on PostgreSQL an advisory lock, so processes starting at once do not race).
 * Each migration is written once for both databases; the few column types that differ come from
 * the dialect's capabilities. Databases made by the hand-written runner of earlier versions
 * (`schema_version`) are taken over as they are: the first migration only creates what is missing.
 */
import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { DialectCaps } from '../dialect.js';
import {
  CREATE_BATCH_FRESH_FUNCTION,
  CREATE_BATCH_FUNCTION,
  INDEXED_BATCH,
  LAST_ORD,
  LEAN_BATCH,
} from './pg-create-batch.js';
import { type AnyDb, run } from './run.js';
import { sqliteCopyKey } from './sqlite-copy-key.js';
import { sqliteJournalUncounted, sqlitePending } from './sqlite-pending.js';

function initial(d: DialectCaps): Migration {
  const { serialPk, bool, bigint, true: yes } = d.ddl;
  return {
    up: (db) =>
      run(db, [
        `CREATE TABLE IF NOT EXISTS users (${serialPk}, id TEXT NOT NULL UNIQUE, email TEXT NOT NULL UNIQUE,
          password_hash TEXT NOT NULL, plan TEXT NOT NULL DEFAULT 'free', created_at TEXT NOT NULL)`,
        `CREATE TABLE IF NOT EXISTS sessions (token_hash TEXT PRIMARY KEY,
          user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, created_at TEXT NOT NULL, expires_at TEXT NOT NULL)`,
        'CREATE INDEX IF NOT EXISTS sessions_user ON sessions(user_id)',
        `CREATE TABLE IF NOT EXISTS projects (${serialPk}, id TEXT NOT NULL UNIQUE,
          owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, name TEXT NOT NULL, fallback_url TEXT,
          version ${bigint} NOT NULL DEFAULT 1, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
        'CREATE INDEX IF NOT EXISTS projects_owner ON projects(owner_id, seq)',
        `CREATE TABLE IF NOT EXISTS endpoints (${serialPk}, id TEXT NOT NULL UNIQUE,
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE, method TEXT NOT NULL, path TEXT NOT NULL,
          route_key TEXT NOT NULL, status_code INTEGER NOT NULL, response_body TEXT NOT NULL, content_type TEXT NOT NULL,
          created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (project_id, method, route_key))`,
        'CREATE INDEX IF NOT EXISTS endpoints_project ON endpoints(project_id, seq)',
        `CREATE TABLE IF NOT EXISTS rules (${serialPk}, id TEXT NOT NULL UNIQUE,
          endpoint_id TEXT NOT NULL REFERENCES endpoints(id) ON DELETE CASCADE, project_id TEXT NOT NULL,
          name TEXT NOT NULL, priority INTEGER NOT NULL DEFAULT 0, active ${bool} NOT NULL DEFAULT ${yes},
          conditions TEXT NOT NULL, response TEXT, actions TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
        'CREATE INDEX IF NOT EXISTS rules_endpoint ON rules(endpoint_id, priority, seq)',
        'CREATE INDEX IF NOT EXISTS rules_project ON rules(project_id)',
        `CREATE TABLE IF NOT EXISTS rule_hits (rule_id TEXT NOT NULL REFERENCES rules(id) ON DELETE CASCADE,
          session TEXT NOT NULL DEFAULT '', hits ${bigint} NOT NULL, touched_at ${bigint} NOT NULL,
          PRIMARY KEY (rule_id, session))`,
        `CREATE TABLE IF NOT EXISTS storage (endpoint_id TEXT NOT NULL REFERENCES endpoints(id) ON DELETE CASCADE,
          session TEXT NOT NULL DEFAULT '', name TEXT NOT NULL, value TEXT NOT NULL, touched_at ${bigint} NOT NULL,
          PRIMARY KEY (endpoint_id, session, name))`,
        `CREATE TABLE IF NOT EXISTS request_log (${serialPk}, id TEXT NOT NULL,
          project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE, at TEXT NOT NULL, entry TEXT NOT NULL)`,
        'CREATE INDEX IF NOT EXISTS request_log_project ON request_log(project_id, seq)',
      ]),
  };
}

/** Mock hosts (SECURITY.md): a unique slug per project; existing projects get one when the store opens. */
const projectSlug: Migration = {
  up: async (db) => {
    const projects = (await db.introspection.getTables()).find((t) => t.name === 'projects');
    if (!projects?.columns.some((c) => c.name === 'slug')) await run(db, ['ALTER TABLE projects ADD COLUMN slug TEXT']);
    await run(db, ['CREATE UNIQUE INDEX IF NOT EXISTS projects_slug ON projects(slug)']);
  },
};

/** Project storage (docs/stateful-mocks.md): values kept per project and mock session, shared by its endpoints. */
function projectStorage(d: DialectCaps): Migration {
  return {
    up: (db) =>
      run(db, [
        `CREATE TABLE IF NOT EXISTS project_storage (project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          session TEXT NOT NULL DEFAULT '', name TEXT NOT NULL, value TEXT NOT NULL, touched_at ${d.ddl.bigint} NOT NULL,
          PRIMARY KEY (project_id, session, name))`,
      ]),
  };
}

/**
 * Data collections (docs/stateful-mocks.md): a collection's definition with its seed, the items each mock
 * session sees (one row per item, indexed: a write touches one row, never the whole list), and
 * which sessions have their copy made from the seed. Endpoints may be bound to a collection.
 */
function collections(d: DialectCaps): Migration {
  const { serialPk, bigint } = d.ddl;
  return {
    up: async (db) => {
      await run(db, [
        `CREATE TABLE IF NOT EXISTS collections (${serialPk}, project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
          name TEXT NOT NULL, id_field TEXT NOT NULL, seed TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
          UNIQUE (project_id, name))`,
        `CREATE TABLE IF NOT EXISTS collection_items (project_id TEXT NOT NULL, collection TEXT NOT NULL,
          session TEXT NOT NULL, item_id TEXT NOT NULL, ord ${bigint} NOT NULL, data TEXT NOT NULL, touched_at ${bigint} NOT NULL,
          PRIMARY KEY (project_id, collection, session, item_id),
          FOREIGN KEY (project_id, collection) REFERENCES collections(project_id, name) ON DELETE CASCADE)`,
        `CREATE TABLE IF NOT EXISTS collection_sessions (project_id TEXT NOT NULL, collection TEXT NOT NULL,
          session TEXT NOT NULL, touched_at ${bigint} NOT NULL, PRIMARY KEY (project_id, collection, session),
          FOREIGN KEY (project_id, collection) REFERENCES collections(project_id, name) ON DELETE CASCADE)`,
      ]);
      // SQLite's items have had no order index since 0015 (nor these columns since 0016)
      if (d.name !== 'sqlite')
        await run(db, [
          'CREATE INDEX IF NOT EXISTS collection_items_order ON collection_items(project_id, collection, session, ord)',
        ]);
      const endpoints = (await db.introspection.getTables()).find((t) => t.name === 'endpoints');
      if (!endpoints?.columns.some((c) => c.name === 'data'))
        await run(db, ['ALTER TABLE endpoints ADD COLUMN data TEXT']);
    },
  };
}

/** The migrations in order: their names sort in the order they run. */
export function migrations(d: DialectCaps): Record<string, Migration> {
  /** Statements PostgreSQL runs and SQLite does not need (its batch function, trigger and column). */
  const onPostgres = (statements: string[]): Migration => ({
    up: async (db) => {
      if (d.name === 'postgres') await run(db, statements);
    },
  });
  return {
    '0001_initial': initial(d),
    '0002_project_slug': projectSlug,
    '0003_project_storage': projectStorage(d),
    '0004_collections': collections(d),
    '0005_api_keys': {
      up: (db) =>
        run(db, [
          `CREATE TABLE IF NOT EXISTS api_keys (id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            name TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, scope TEXT NOT NULL, project_ids TEXT,
            expires_at TEXT, created_at TEXT NOT NULL, last_used_at TEXT)`,
          'CREATE INDEX IF NOT EXISTS api_keys_user ON api_keys(user_id)',
        ]),
    },
    // record mode (docs/interop.md "Record"): proxied answers become endpoints and rules
    '0006_project_recording': {
      up: async (db) => {
        const projects = (await db.introspection.getTables()).find((t) => t.name === 'projects');
        if (!projects?.columns.some((c) => c.name === 'recording'))
          await run(db, ['ALTER TABLE projects ADD COLUMN recording INTEGER NOT NULL DEFAULT 0']);
      },
    },
    // headers of an endpoint's default answer (docs/api.md "Endpoints")
    // config variables and contract validation modes of a project (docs/templates.md)
    // a GraphQL endpoint's schema and bindings (docs/graphql.md)
    '0013_graphql': {
      up: async (db) => {
        const table = (await db.introspection.getTables()).find((t) => t.name === 'endpoints');
        if (!table?.columns.some((c) => c.name === 'graphql'))
          await run(db, ['ALTER TABLE endpoints ADD COLUMN graphql TEXT']);
      },
    },
    // SQLite keeps a session's last position on its row, and its items no order index: a create then
    // writes one index page fewer (docs/architecture.md); PostgreSQL keeps its order index (and
    // the last position since 0017)
    '0015_sqlite_collection_last_ord': {
      up: async (db) => {
        if (d.name !== 'sqlite') return;
        const table = (await db.introspection.getTables()).find((t) => t.name === 'collection_sessions');
        if (!table?.columns.some((c) => c.name === 'last_ord'))
          await run(db, [
            'ALTER TABLE collection_sessions ADD COLUMN last_ord INTEGER NOT NULL DEFAULT 0',
            `UPDATE collection_sessions SET last_ord = COALESCE((SELECT MAX(i.ord) FROM collection_items i
              WHERE i.project_id = collection_sessions.project_id AND i.collection = collection_sessions.collection
              AND i.session = collection_sessions.session), 0)`,
          ]);
        await run(db, ['DROP INDEX IF EXISTS collection_items_order']);
      },
    },
    // SQLite's collection items keyed by an integer for their session's copy (sqlite-copy-key.ts)
    '0016_sqlite_collection_copy_key': {
      up: async (db) => {
        if (d.name === 'sqlite') await sqliteCopyKey(db);
      },
    },
    // PostgreSQL's one round trip for a batch of collection creates (store/hot/pg-creates.ts), as
    // 0017 replaces it (a new database runs both)
    '0014_pg_create_batch': onPostgres([CREATE_BATCH_FUNCTION]),
    // PostgreSQL keeps a session's last position on its copy's row too, and its batch function reads
    // it there, for all of a batch's groups in one query (pg-create-batch.ts)
    '0017_pg_collection_last_ord': onPostgres(LAST_ORD),
    // the batch function's form that inserts the items whose ids the process made without checking
    // them for a conflict first (pg-create-batch.ts)
    '0018_pg_create_batch_fresh': onPostgres([CREATE_BATCH_FRESH_FUNCTION]),
    // the batch function without reading back what a batch of made ids inserted, and the last
    // position's trigger skipping the batch's own inserts (pg-create-batch.ts)
    '0019_pg_lean_create_batch': onPostgres(LEAN_BATCH),
    // the batch function's plan reads the copies through their key, however small the table was
    // when a connection made it (pg-create-batch.ts)
    '0020_pg_batch_indexed_copies': onPostgres(INDEXED_BATCH),
    // SQLite's collection creates journaled before they join the items (sqlite-pending.ts)
    '0021_sqlite_collection_pending': {
      up: async (db) => {
        if (d.name === 'sqlite') await sqlitePending(db);
      },
    },
    // SQLite's copy rows count only what is out of the creates' journal; a merge counts the rest (sqlite-pending.ts)
    '0022_sqlite_journal_uncounted': {
      up: async (db) => {
        if (d.name === 'sqlite') await sqliteJournalUncounted(db);
      },
    },
    // the trigger of a WebSocket endpoint's rule (docs/websocket.md)
    '0012_rule_trigger': {
      up: async (db) => {
        const table = (await db.introspection.getTables()).find((t) => t.name === 'rules');
        if (!table?.columns.some((c) => c.name === 'trigger'))
          await run(db, ['ALTER TABLE rules ADD COLUMN trigger TEXT']);
        const endpoints = (await db.introspection.getTables()).find((t) => t.name === 'endpoints');
        if (!endpoints?.columns.some((c) => c.name === 'channels'))
          await run(db, ['ALTER TABLE endpoints ADD COLUMN channels TEXT']);
      },
    },
    // a project's OpenAPI contract, and an endpoint's own validation modes (docs/contract.md)
    '0011_contracts': {
      up: async (db) => {
        await run(db, [
          `CREATE TABLE IF NOT EXISTS contracts (project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
            format TEXT NOT NULL, document TEXT NOT NULL, resolved TEXT NOT NULL, updated_at TEXT NOT NULL)`,
        ]);
        const table = (await db.introspection.getTables()).find((t) => t.name === 'endpoints');
        if (!table?.columns.some((c) => c.name === 'validation'))
          await run(db, ['ALTER TABLE endpoints ADD COLUMN validation TEXT']);
      },
    },
    '0010_project_settings': {
      up: async (db) => {
        const table = (await db.introspection.getTables()).find((t) => t.name === 'projects');
        const has = (name: string) => table?.columns.some((c) => c.name === name);
        if (!has('config')) await run(db, ['ALTER TABLE projects ADD COLUMN config TEXT']);
        if (!has('validation')) await run(db, ['ALTER TABLE projects ADD COLUMN validation TEXT']);
      },
    },
    '0009_endpoint_headers': {
      up: async (db) => {
        const table = (await db.introspection.getTables()).find((t) => t.name === 'endpoints');
        if (!table?.columns.some((c) => c.name === 'headers'))
          await run(db, ['ALTER TABLE endpoints ADD COLUMN headers TEXT']);
      },
    },
    // login and register attempts counted across processes (store/attempts.ts)
    '0008_attempts': {
      up: (db) =>
        run(db, [
          `CREATE TABLE IF NOT EXISTS attempts (key TEXT PRIMARY KEY, reset_at ${d.ddl.bigint} NOT NULL, n ${d.ddl.bigint} NOT NULL)`,
        ]),
    },
    // a session's copy of a collection: copy on write over the seed (`base` seed items, -1 for a
    // full copy), with its item count and bytes kept for the caps (store/hot/collections.ts)
    '0007_collection_session_counts': {
      up: async (db) => {
        const table = (await db.introspection.getTables()).find((t) => t.name === 'collection_sessions');
        if (table?.columns.some((c) => c.name === 'items')) return;
        await run(db, [
          `ALTER TABLE collection_sessions ADD COLUMN base ${d.ddl.bigint} NOT NULL DEFAULT -1`,
          `ALTER TABLE collection_sessions ADD COLUMN items ${d.ddl.bigint} NOT NULL DEFAULT 0`,
          `ALTER TABLE collection_sessions ADD COLUMN bytes ${d.ddl.bigint} NOT NULL DEFAULT 0`,
          `UPDATE collection_sessions SET
            items = (SELECT COUNT(*) FROM collection_items i WHERE i.project_id = collection_sessions.project_id
              AND i.collection = collection_sessions.collection AND i.session = collection_sessions.session),
            bytes = (SELECT COALESCE(SUM(LENGTH(i.data)), 0) FROM collection_items i WHERE i.project_id = collection_sessions.project_id
              AND i.collection = collection_sessions.collection AND i.session = collection_sessions.session)`,
        ]);
      },
    },
  };
}

/** Brings the database up to date; throws with the failing migration's error. */
export async function migrate(db: AnyDb, d: DialectCaps): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(d) };
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'a migration';
    throw new Error(`database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
