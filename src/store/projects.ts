/**
 * Projects, owner first: every read and write filters on the owner, so another user's project is
 * indistinguishable from a missing one. Each project has a slug (its mock host label, SECURITY.md).
 */

import { type RawBuilder, sql } from 'kysely';
import type { ValidationModes } from '../domain/contract.js';
import { isUniqueViolation } from '../domain/driver-errors.js';
import { AppError } from '../domain/errors.js';
import { newId, newSlug, nowIso } from '../domain/ids.js';
import type { Project } from '../domain/model.js';
import type { StoreCore } from './core.js';
import { toProject } from './rows.js';

export interface ProjectFields {
  name: string;
  fallbackUrl?: string | null;
  slug?: string;
  recording?: boolean;
  config?: Record<string, string>;
  validation?: ValidationModes;
}

const slugTaken = () => new AppError('conflict', 'That slug is taken by another project');

export class Projects {
  constructor(private readonly core: StoreCore) {}

  async list(ownerId: string): Promise<Project[]> {
    const rows = await this.core.db
      .selectFrom('projects')
      .selectAll()
      .where('owner_id', '=', ownerId)
      .orderBy('seq')
      .execute();
    return rows.map(toProject);
  }

  count(ownerId: string): Promise<number> {
    return this.core.count(this.core.db, 'projects', 'owner_id', ownerId);
  }

  /**
   * Creates a project unless the owner already has `limit`. The count and the insert run in one
   * transaction under a lock on the owner's row, so concurrent creates cannot pass the limit. A
   * given slug that is taken is a 409; else one is generated (again on the rare collision).
   */
  async create(ownerId: string, input: ProjectFields, limit = Number.POSITIVE_INFINITY): Promise<Project> {
    const { db } = this.core;
    const at = nowIso();
    const base = {
      id: newId(),
      owner_id: ownerId,
      name: input.name,
      fallback_url: input.fallbackUrl ?? null,
      recording: input.recording ? 1 : 0,
      config: input.config && Object.keys(input.config).length > 0 ? JSON.stringify(input.config) : null,
      validation: input.validation ? JSON.stringify(input.validation) : null,
      created_at: at,
      updated_at: at,
    };
    const insert = async (slug: string) => {
      await db.transaction().execute(async (trx) => {
        await this.core.underLimit(
          trx,
          { table: 'users', id: ownerId },
          { table: 'projects', column: 'owner_id' },
          limit,
          () => new AppError('limit_exceeded', `At most ${limit} projects per user`),
        );
        await trx
          .insertInto('projects')
          .values({ ...base, slug })
          .execute();
      });
      return slug;
    };
    let slug: string;
    if (input.slug !== undefined) {
      try {
        slug = await insert(input.slug);
      } catch (e) {
        throw isUniqueViolation(e) ? slugTaken() : e;
      }
    } else {
      slug = await this.withFreshSlug(input.name, insert);
    }
    this.core.changed(base.id);
    return toProject({ ...base, slug, seq: 0, version: 1 });
  }

  async get(ownerId: string, projectId: string): Promise<Project | null> {
    const r = await this.core.db
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', projectId)
      .where('owner_id', '=', ownerId)
      .executeTakeFirst();
    return r ? toProject(r) : null;
  }

  async require(ownerId: string, projectId: string): Promise<Project> {
    const p = await this.get(ownerId, projectId);
    if (!p) throw new AppError('not_found', 'No such project');
    return p;
  }

  async update(ownerId: string, projectId: string, patch: Partial<ProjectFields>): Promise<Project> {
    const set: {
      updated_at: string;
      name?: string;
      fallback_url?: string | null;
      slug?: string;
      recording?: number;
      config?: string | null;
      validation?: string | null;
      version: RawBuilder<number>;
    } = { updated_at: nowIso(), version: sql<number>`version + 1` };
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.fallbackUrl !== undefined) set.fallback_url = patch.fallbackUrl;
    if (patch.slug !== undefined) set.slug = patch.slug;
    if (patch.recording !== undefined) set.recording = patch.recording ? 1 : 0;
    if (patch.validation !== undefined) set.validation = JSON.stringify(patch.validation);
    if (patch.config !== undefined)
      set.config = Object.keys(patch.config).length > 0 ? JSON.stringify(patch.config) : null;
    let updated: bigint;
    try {
      const res = await this.core.db
        .updateTable('projects')
        .set(set)
        .where('id', '=', projectId)
        .where('owner_id', '=', ownerId)
        .executeTakeFirst();
      updated = res.numUpdatedRows;
    } catch (e) {
      throw isUniqueViolation(e) ? slugTaken() : e;
    }
    if (Number(updated) === 0) throw new AppError('not_found', 'No such project');
    this.core.changed(projectId);
    return this.require(ownerId, projectId);
  }

  async delete(ownerId: string, projectId: string): Promise<void> {
    const res = await this.core.db
      .deleteFrom('projects')
      .where('id', '=', projectId)
      .where('owner_id', '=', ownerId)
      .executeTakeFirst();
    if (Number(res.numDeletedRows) === 0) throw new AppError('not_found', 'No such project');
    this.core.changed(projectId);
  }

  /** The id of the project whose mock host is `slug` (mock traffic: no owner), or null. */
  /** The owner of a project (the recorder writes on the owner's behalf), or null. */
  async ownerOf(projectId: string): Promise<{ id: string; plan: string } | null> {
    const row = await this.core.db
      .selectFrom('projects')
      .innerJoin('users', 'users.id', 'projects.owner_id')
      .select(['users.id as id', 'users.plan as plan'])
      .where('projects.id', '=', projectId)
      .executeTakeFirst();
    return row ?? null;
  }

  async idBySlug(slug: string): Promise<string | null> {
    const r = await this.core.db.selectFrom('projects').select('id').where('slug', '=', slug).executeTakeFirst();
    return r?.id ?? null;
  }

  /** Projects made before mock hosts existed get a slug (run when the store opens). */
  async backfillSlugs(): Promise<void> {
    const { db } = this.core;
    const rows = await db.selectFrom('projects').select(['id', 'name']).where('slug', 'is', null).execute();
    for (const r of rows) {
      await this.withFreshSlug(r.name, (slug) =>
        db.updateTable('projects').set({ slug }).where('id', '=', r.id).where('slug', 'is', null).execute(),
      );
    }
  }

  /** Runs `write` with a generated slug, again with another one if that slug was taken meanwhile. */
  private async withFreshSlug<T>(name: string, write: (slug: string) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await write(newSlug(name));
      } catch (e) {
        if (!isUniqueViolation(e) || attempt >= 5) throw e;
      }
    }
  }
}
