/**
 * Collections of a project (docs/stateful-mocks.md): their definitions and seeds, owner first. What a mock
 * session sees of a collection lives in `collection_items` (hot/collections.ts); reading it here
 * goes through the same commands, so the management API sees exactly what mocks see.
 */
import { seedBase } from '../domain/collections.js';
import { isUniqueViolation } from '../domain/driver-errors.js';
import { AppError } from '../domain/errors.js';
import { nowIso } from '../domain/ids.js';
import type { Collection } from '../domain/model.js';
import type { StoreCore } from './core.js';
import type { CollectionRef } from './hot/collections.js';
import type { HotState } from './hot/hot-state.js';
import type { Projects } from './projects.js';
import type { Row } from './rows.js';

export interface CollectionFields {
  idField: string;
  seed: Record<string, unknown>[];
}

export const toCollection = (r: Row<'collections'>): Collection => ({
  name: r.name,
  idField: r.id_field,
  seed: JSON.parse(r.seed),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const missing = () => new AppError('not_found', 'No such collection');

export class Collections {
  constructor(
    private readonly core: StoreCore,
    private readonly projects: Projects,
    private readonly hot: () => HotState,
  ) {}

  async list(ownerId: string, projectId: string): Promise<Collection[]> {
    await this.projects.require(ownerId, projectId);
    const rows = await this.core.db
      .selectFrom('collections')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('seq')
      .execute();
    return rows.map(toCollection);
  }

  async get(ownerId: string, projectId: string, name: string): Promise<Collection> {
    await this.projects.require(ownerId, projectId);
    const r = await this.core.db
      .selectFrom('collections')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (!r) throw missing();
    return toCollection(r);
  }

  async create(ownerId: string, projectId: string, name: string, f: CollectionFields): Promise<Collection> {
    await this.projects.require(ownerId, projectId);
    const at = nowIso();
    const row = {
      project_id: projectId,
      name,
      id_field: f.idField,
      seed: JSON.stringify(f.seed),
      created_at: at,
      updated_at: at,
    };
    try {
      await this.core.db.transaction().execute(async (trx) => {
        await trx.insertInto('collections').values(row).execute();
        await this.core.bump(trx, projectId);
      });
    } catch (e) {
      throw isUniqueViolation(e) ? new AppError('conflict', 'The project has a collection of that name') : e;
    }
    this.core.changed(projectId);
    return toCollection({ ...row, seq: 0 });
  }

  /** Changes the seed or id field: every session's copy is made again from the new seed. */
  async update(ownerId: string, projectId: string, name: string, f: CollectionFields): Promise<Collection> {
    await this.get(ownerId, projectId, name);
    await this.core.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('collections')
        .set({ id_field: f.idField, seed: JSON.stringify(f.seed), updated_at: nowIso() })
        .where('project_id', '=', projectId)
        .where('name', '=', name)
        .execute();
      await this.clearIn(trx, projectId, name);
      await this.core.bump(trx, projectId);
    });
    this.core.changed(projectId);
    return this.get(ownerId, projectId, name);
  }

  async delete(ownerId: string, projectId: string, name: string): Promise<void> {
    await this.get(ownerId, projectId, name);
    await this.core.db.transaction().execute(async (trx) => {
      await this.clearIn(trx, projectId, name);
      await trx.deleteFrom('collections').where('project_id', '=', projectId).where('name', '=', name).execute();
      await this.core.bump(trx, projectId);
    });
    this.core.changed(projectId);
  }

  /**
   * The collection as the session sees it now (its copy is made from the seed if it had none;
   * `render` renders the seed's templates, as a mock request would).
   */
  async items(
    ownerId: string,
    projectId: string,
    name: string,
    session = '',
    render: (seed: Record<string, unknown>[]) => readonly Record<string, unknown>[] = (seed) => seed,
  ): Promise<Record<string, unknown>[]> {
    const c = await this.get(ownerId, projectId, name);
    const ref: CollectionRef = {
      projectId,
      name,
      idField: c.idField,
      seed: () => render(c.seed),
      base: seedBase(c.seed, c.idField),
      session,
    };
    const out = await this.hot().collection(ref, { op: 'list' });
    return out.kind === 'items' ? out.raw.map((d) => JSON.parse(d) as Record<string, unknown>) : [];
  }

  /** Back to the seed: one session, or (session undefined) the shared state and every session. */
  async reset(ownerId: string, projectId: string, name: string, session?: string): Promise<void> {
    await this.get(ownerId, projectId, name);
    const { db, dialect } = this.core;
    for (const table of dialect.copyTables) {
      let q = db.deleteFrom(table).where('project_id', '=', projectId).where('collection', '=', name);
      if (session !== undefined) q = q.where('session', '=', session);
      await q.execute();
    }
    this.core.changed(projectId);
  }

  private async clearIn(trx: Parameters<StoreCore['bump']>[0], projectId: string, name: string): Promise<void> {
    for (const table of this.core.dialect.copyTables)
      await trx.deleteFrom(table).where('project_id', '=', projectId).where('collection', '=', name).execute();
  }
}
