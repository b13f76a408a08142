/** A project's OpenAPI contract (docs/contract.md): one row per project, replaced whole. */
import { nowIso } from '../domain/ids.js';
import type { StoreCore } from './core.js';
import type { Projects } from './projects.js';

export interface StoredContract {
  format: string;
  /** the document as given (JSON) */
  document: unknown;
  updatedAt: string;
}

export class Contracts {
  constructor(
    private readonly core: StoreCore,
    private readonly projects: Projects,
  ) {}

  /** Attaches (or replaces) the contract; the mock runtime reloads the project. */
  async put(
    ownerId: string,
    projectId: string,
    c: { format: string; documentJson: string; resolved: string },
  ): Promise<void> {
    await this.projects.require(ownerId, projectId);
    const row = { format: c.format, document: c.documentJson, resolved: c.resolved, updated_at: nowIso() };
    await this.core.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('contracts').where('project_id', '=', projectId).execute();
      await trx
        .insertInto('contracts')
        .values({ project_id: projectId, ...row })
        .execute();
      await this.core.bump(trx, projectId);
    });
    this.core.changed(projectId);
  }

  async get(ownerId: string, projectId: string): Promise<StoredContract | null> {
    await this.projects.require(ownerId, projectId);
    // not the resolved form: about twice the document's size, and an export (the caller) has no use for it
    const r = await this.core.db
      .selectFrom('contracts')
      .select(['format', 'document', 'updated_at'])
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return r ? { format: r.format, document: JSON.parse(r.document), updatedAt: r.updated_at } : null;
  }

  /** One column of the project's contract row, after the owner check; undefined when it has none. */
  private async column<C extends 'document' | 'project_id'>(ownerId: string, projectId: string, col: C) {
    await this.projects.require(ownerId, projectId);
    const r = await this.core.db
      .selectFrom('contracts')
      .select(col)
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return (r as Record<string, string> | undefined)?.[col];
  }

  /** The document as stored (JSON text), for answering it as it is; null when there is none. */
  async documentText(ownerId: string, projectId: string): Promise<string | null> {
    return (await this.column(ownerId, projectId, 'document')) ?? null;
  }

  /** Whether the project has a contract (without reading it). */
  async exists(ownerId: string, projectId: string): Promise<boolean> {
    return (await this.column(ownerId, projectId, 'project_id')) !== undefined;
  }

  /** The resolved document (JSON text) and its format, for lint. */
  async resolved(ownerId: string, projectId: string): Promise<{ format: string; resolved: string } | null> {
    await this.projects.require(ownerId, projectId);
    const r = await this.core.db
      .selectFrom('contracts')
      .select(['format', 'resolved'])
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return r ?? null;
  }

  /** Removes the contract; false when there was none. */
  async delete(ownerId: string, projectId: string): Promise<boolean> {
    await this.projects.require(ownerId, projectId);
    let removed = false;
    await this.core.db.transaction().execute(async (trx) => {
      const r = await trx.deleteFrom('contracts').where('project_id', '=', projectId).executeTakeFirst();
      removed = Number(r.numDeletedRows) > 0;
      if (removed) await this.core.bump(trx, projectId);
    });
    if (removed) this.core.changed(projectId);
    return removed;
  }
}
