import type { ProjectConfig } from '../runtime/ports.js';
import { toCollection } from './collections.js';
import type { StoreCore } from './core.js';
import { toEndpoint, toProject, toRule } from './rows.js';

/** What the mock runtime needs of one project. */
export type { ProjectConfig };

export class MockConfig {
  constructor(private readonly core: StoreCore) {}

  async load(projectId: string): Promise<ProjectConfig | null> {
    const { db } = this.core;
    const p = await db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst();
    if (!p) return null;
    const endpoints = await db
      .selectFrom('endpoints')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('seq')
      .execute();
    const rules = await db
      .selectFrom('rules')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('priority')
      .orderBy('seq')
      .execute();
    const collections = await db
      .selectFrom('collections')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('seq')
      .execute();
    const contract = await db
      .selectFrom('contracts')
      .select(['format', 'resolved'])
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return {
      contract: contract ? { format: contract.format, resolved: contract.resolved } : null,
      project: toProject(p),
      version: Number(p.version),
      endpoints: endpoints.map(toEndpoint),
      rules: rules.map((r) => toRule(r, 0)),
      collections: collections.map(toCollection),
    };
  }

  /** Project versions, to find snapshots that missed a change notification. */
  async versions(projectIds: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (projectIds.length === 0) return out;
    const rows = await this.core.db
      .selectFrom('projects')
      .select(['id', 'version'])
      .where('id', 'in', projectIds)
      .execute();
    for (const r of rows) out.set(r.id, Number(r.version));
    return out;
  }

  async version(projectId: string): Promise<number | null> {
    const r = await this.core.db
      .selectFrom('projects')
      .select('version')
      .where('id', '=', projectId)
      .executeTakeFirst();
    return r ? Number(r.version) : null;
  }
}
