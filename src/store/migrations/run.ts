/** Runs raw DDL statements in order (the migrations' one way to write SQL). */
import { type Kysely, sql } from 'kysely';

export type AnyDb = Kysely<unknown>;

export const run = async (db: AnyDb, statements: readonly string[]) => {
  for (const s of statements) await sql.raw(s).execute(db);
};
