/**
 * What every aggregate of the store shares: the Kysely instance, the dialect's capabilities, and
 * the change events the mock runtime and the change feed listen to.
 */
import type { EventEmitter } from 'node:events';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { DialectCaps } from './dialect.js';
import type { Database } from './schema.js';

export type Executor = Kysely<Database> | Transaction<Database>;

export class StoreCore {
  constructor(
    readonly db: Kysely<Database>,
    readonly dialect: DialectCaps,
    private readonly events: EventEmitter,
  ) {}

  /** A project's mock configuration or state changed ('change' event, and NOTIFY on PostgreSQL). */
  changed(projectId: string): void {
    this.events.emit('change', projectId);
  }

  /** Moves a project's configuration version on (in the transaction that changes it). */
  async bump(trx: Executor, projectId: string): Promise<void> {
    await trx.updateTable('projects').set({ version: sql<number>`version + 1` }).where('id', '=', projectId).execute();
  }

  /**
   * Inside `trx`: locks the parent row, then throws `tooMany()` when it already has `limit`
   * children — so a count-then-insert in the same transaction cannot pass the limit however many
   * run at once (the lock serialises them on PostgreSQL; SQLite has a single writer).
   */
  async underLimit(
    trx: Executor,
    parent: { table: 'users' | 'projects' | 'endpoints'; id: string },
    children: { table: 'projects' | 'endpoints' | 'rules'; column: 'owner_id' | 'project_id' | 'endpoint_id' },
    limit: number,
    tooMany: () => Error,
  ): Promise<void> {
    if (!Number.isFinite(limit)) return;
    await this.dialect.lockRow(trx, parent.table, parent.id);
    if ((await this.count(trx, children.table, children.column, parent.id)) >= limit) throw tooMany();
  }

  /** Rows of `table` whose `column` is `value`, counted in `trx` (or outside a transaction). */
  async count(
    trx: Executor,
    table: 'projects' | 'endpoints' | 'rules',
    column: 'owner_id' | 'project_id' | 'endpoint_id',
    value: string,
  ): Promise<number> {
    const r = await sql<{
      n: number | string;
    }>`SELECT COUNT(*) AS n FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ${value}`.execute(trx);
    return Number(r.rows[0]?.n ?? 0);
  }
}
