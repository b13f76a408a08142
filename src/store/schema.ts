/**
 * Table types for Kysely and the schema, as SQL per dialect. Times of records are ISO 8601 text
 * (they sort); `seq` gives a stable creation order where two records share a millisecond.
 * Conditions, response and actions of a rule are JSON text.
 */
import type { Generated } from 'kysely';

export interface UsersTable {
  seq: Generated<number>;
  id: string;
  email: string;
  password_hash: string;
  plan: string;
  created_at: string;
}
export interface SessionsTable {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}
export interface ProjectsTable {
  seq: Generated<number>;
  id: string;
  owner_id: string;
  name: string;
  fallback_url: string | null;
  /** DNS label, unique: the project's mock host is `<slug>.<MOCKYARD_MOCK_DOMAIN>` */
  slug: string | null;
  version: Generated<number>;
  created_at: string;
  updated_at: string;
}
export interface EndpointsTable {
  seq: Generated<number>;
  id: string;
  project_id: string;
  method: string;
  path: string;
  /** path with the trailing slash removed: two endpoints conflict when method and route_key match */
  route_key: string;
  status_code: number;
  response_body: string;
  content_type: string;
  created_at: string;
  updated_at: string;
}
export interface RulesTable {
  seq: Generated<number>;
  id: string;
  endpoint_id: string;
  project_id: string;
  name: string;
  priority: number;
  active: number | boolean;
  conditions: string;
  response: string | null;
  actions: string;
  created_at: string;
  updated_at: string;
}
export interface RuleHitsTable {
  rule_id: string;
  session: string;
  hits: number | string;
  touched_at: number | string;
}
export interface StorageTable {
  endpoint_id: string;
  session: string;
  name: string;
  value: string;
  touched_at: number | string;
}
export interface RequestLogTable {
  seq: Generated<number>;
  id: string;
  project_id: string;
  at: string;
  entry: string;
}
export interface SchemaVersionTable {
  version: number;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  projects: ProjectsTable;
  endpoints: EndpointsTable;
  rules: RulesTable;
  rule_hits: RuleHitsTable;
  storage: StorageTable;
  request_log: RequestLogTable;
  schema_version: SchemaVersionTable;
}

export type Dialect = 'sqlite' | 'postgres';

/** Migrations in order; each entry is a list of statements per dialect. */
export function migrations(d: Dialect): string[][] {
  const pk = d === 'sqlite' ? 'seq INTEGER PRIMARY KEY AUTOINCREMENT' : 'seq BIGSERIAL PRIMARY KEY';
  const bool = d === 'sqlite' ? 'INTEGER' : 'BOOLEAN';
  const big = d === 'sqlite' ? 'INTEGER' : 'BIGINT';
  const yes = d === 'sqlite' ? '1' : 'TRUE';
  return [
    [
      `CREATE TABLE users (${pk}, id TEXT NOT NULL UNIQUE, email TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL,
        plan TEXT NOT NULL DEFAULT 'free', created_at TEXT NOT NULL)`,
      `CREATE TABLE sessions (token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL, expires_at TEXT NOT NULL)`,
      'CREATE INDEX sessions_user ON sessions(user_id)',
      `CREATE TABLE projects (${pk}, id TEXT NOT NULL UNIQUE, owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name TEXT NOT NULL, fallback_url TEXT, version ${big} NOT NULL DEFAULT 1, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
      'CREATE INDEX projects_owner ON projects(owner_id, seq)',
      `CREATE TABLE endpoints (${pk}, id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        method TEXT NOT NULL, path TEXT NOT NULL, route_key TEXT NOT NULL, status_code INTEGER NOT NULL,
        response_body TEXT NOT NULL, content_type TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
        UNIQUE (project_id, method, route_key))`,
      'CREATE INDEX endpoints_project ON endpoints(project_id, seq)',
      `CREATE TABLE rules (${pk}, id TEXT NOT NULL UNIQUE, endpoint_id TEXT NOT NULL REFERENCES endpoints(id) ON DELETE CASCADE,
        project_id TEXT NOT NULL, name TEXT NOT NULL, priority INTEGER NOT NULL DEFAULT 0, active ${bool} NOT NULL DEFAULT ${yes},
        conditions TEXT NOT NULL, response TEXT, actions TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
      'CREATE INDEX rules_endpoint ON rules(endpoint_id, priority, seq)',
      'CREATE INDEX rules_project ON rules(project_id)',
      `CREATE TABLE rule_hits (rule_id TEXT NOT NULL REFERENCES rules(id) ON DELETE CASCADE, session TEXT NOT NULL DEFAULT '',
        hits ${big} NOT NULL, touched_at ${big} NOT NULL, PRIMARY KEY (rule_id, session))`,
      `CREATE TABLE storage (endpoint_id TEXT NOT NULL REFERENCES endpoints(id) ON DELETE CASCADE, session TEXT NOT NULL DEFAULT '',
        name TEXT NOT NULL, value TEXT NOT NULL, touched_at ${big} NOT NULL, PRIMARY KEY (endpoint_id, session, name))`,
      `CREATE TABLE request_log (${pk}, id TEXT NOT NULL, project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        at TEXT NOT NULL, entry TEXT NOT NULL)`,
      'CREATE INDEX request_log_project ON request_log(project_id, seq)',
    ],
    // 2: mock hosts (CONTRACT §9); existing projects get their slug when the store opens
    ['ALTER TABLE projects ADD COLUMN slug TEXT', 'CREATE UNIQUE INDEX projects_slug ON projects(slug)'],
  ];
}
