/**
 * What differs between the two databases, said once (kysely-adapter style): the store's code asks
 * this object instead of testing which database it runs on. `openStore` (index.ts) is the only
 * place that picks one.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';

export type DialectName = 'sqlite' | 'postgres';
type Executor = Kysely<Database> | Transaction<Database>;

export interface DialectCaps {
  readonly name: DialectName;
  /** a boolean as its column stores it */
  bool(v: boolean): number | boolean;
  /**
   * Holds a row until the transaction ends, so a count-then-insert in it cannot race another
   * (PostgreSQL: `FOR UPDATE`; SQLite: a no-op, its single writer already serialises transactions).
   */
  lockRow(trx: Executor, table: 'users' | 'projects' | 'endpoints', id: string): Promise<void>;
  /** Column types and literals for the migrations' DDL. */
  readonly ddl: { serialPk: string; bool: string; bigint: string; true: string };
  /**
   * The tables a session's copy of a collection is deleted from, filtered by project, collection
   * and session: on SQLite its items go with its row (keyed by the row's id, `ON DELETE CASCADE`:
   * migrations/sqlite-copy-key.ts); PostgreSQL's items carry the text key themselves.
   */
  readonly copyTables: readonly ('collection_items' | 'collection_sessions')[];
}

export const SQLITE: DialectCaps = {
  name: 'sqlite',
  bool: (v) => (v ? 1 : 0),
  lockRow: async () => {},
  ddl: { serialPk: 'seq INTEGER PRIMARY KEY AUTOINCREMENT', bool: 'INTEGER', bigint: 'INTEGER', true: '1' },
  copyTables: ['collection_sessions'],
};

export const POSTGRES: DialectCaps = {
  name: 'postgres',
  bool: (v) => v,
  lockRow: async (trx, table, id) => {
    await sql`SELECT id FROM ${sql.table(table)} WHERE id = ${id} FOR UPDATE`.execute(trx);
  },
  ddl: { serialPk: 'seq BIGSERIAL PRIMARY KEY', bool: 'BOOLEAN', bigint: 'BIGINT', true: 'TRUE' },
  copyTables: ['collection_items', 'collection_sessions'],
};
