/** Runs raw DDL statements in order (the migrations' one way to write SQL). */
import { type Kysely, sql } from 'kysely';

export type AnyDb = Kysely<unknown>;

export const run = async (db: AnyDb, statements: readonly string[]) => {
  for (const s of statements) await sql.raw(s).execute(db);
};

/** SQLite: runs the statements in one transaction (Kysely runs SQLite's migrations outside one); a statement that fails rolls all of them back. */
export async function inSqliteTransaction(db: AnyDb, statements: readonly string[]) {
  await run(db, ['BEGIN IMMEDIATE']);
  try {
    await run(db, statements);
    await run(db, ['COMMIT']);
  } catch (err) {
    await run(db, ['ROLLBACK']);
    throw err;
  }
}

/** SQLite: `inSqliteTransaction`, unless `table` already has `column` — the mark that they ran. */
export async function runOnceSqlite(db: AnyDb, mark: { table: string; column: string }, statements: readonly string[]) {
  const table = (await db.introspection.getTables()).find((t) => t.name === mark.table);
  if (table?.columns.some((c) => c.name === mark.column)) return;
  await inSqliteTransaction(db, statements);
}
