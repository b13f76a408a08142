/**
 * Table types for Kysely (the DDL is in migrations/). Times of records are ISO 8601 text (they
 * sort); `seq` gives a stable creation order where two records share a millisecond. Conditions,
 * response and actions of a rule are JSON text. The `sessions` table holds login tokens.
 */
import type { ColumnType, Generated } from 'kysely';

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
  recording: Generated<number>;
  /** config variables as JSON ({} when null) */
  config: ColumnType<string | null, string | null | undefined, string | null>;
  /** contract validation modes as JSON (null: the defaults) */
  validation: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** JSON `{collection, operation}` when the endpoint is bound to a collection, else null */
  data: string | null;
  /** JSON `{name: value}` of the default answer's headers, or null for none */
  headers: string | null;
  /** contract validation modes as JSON (null: the project's) */
  validation: ColumnType<string | null, string | null | undefined, string | null>;
  /** a GraphQL endpoint's schema and bindings as JSON (null: not GraphQL) */
  graphql: ColumnType<string | null, string | null | undefined, string | null>;
  /** a WebSocket endpoint's channels as JSON (null: none) */
  channels: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: string;
  updated_at: string;
}
/** A project's OpenAPI contract (docs/contract.md): as given, and resolved ($refs inlined, Swagger converted). */
export interface ContractsTable {
  project_id: string;
  format: string;
  /** the document as JSON */
  document: string;
  /** the resolved document as JSON (a recursive schema repeats once, then accepts anything) */
  resolved: string;
  updated_at: string;
}
export interface CollectionsTable {
  seq: Generated<number>;
  project_id: string;
  name: string;
  id_field: string;
  /** JSON array of objects */
  seed: string;
  created_at: string;
  updated_at: string;
}
/**
 * PostgreSQL's items of a session's copy. SQLite's are keyed by their copy's row instead (copy,
 * item_id, ord, data: migrations/sqlite-copy-key.ts) and are only read and written by
 * store/hot/sqlite.ts; Kysely deletes them with their copy (`DialectCaps.copyTables`).
 */
export interface CollectionItemsTable {
  project_id: string;
  collection: string;
  session: string;
  item_id: string;
  ord: number | string;
  data: string;
  touched_at: number | string;
}
export interface AttemptsTable {
  key: string;
  reset_at: number | string;
  n: number | string;
}
export interface CollectionSessionsTable {
  project_id: string;
  collection: string;
  session: string;
  touched_at: number | string;
  /** seed items the copy is written over (copy on write), or -1 for a full copy */
  base: ColumnType<number | string, number | undefined, number>;
  items: ColumnType<number | string, number | undefined, number>;
  bytes: ColumnType<number | string, number | undefined, number>;
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
  /** WebSocket endpoints: connect | message | close (null: message) */
  trigger: ColumnType<string | null, string | null | undefined, string | null>;
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
export interface ProjectStorageTable {
  project_id: string;
  session: string;
  name: string;
  value: string;
  touched_at: number | string;
}
export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  key_hash: string;
  /** read | write */
  scope: string;
  /** JSON array of project ids, or null: every project of the user */
  project_ids: string | null;
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
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
  project_storage: ProjectStorageTable;
  collections: CollectionsTable;
  api_keys: ApiKeysTable;
  collection_items: CollectionItemsTable;
  collection_sessions: CollectionSessionsTable;
  attempts: AttemptsTable;
  contracts: ContractsTable;
  request_log: RequestLogTable;
  schema_version: SchemaVersionTable;
}
