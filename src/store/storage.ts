/**
 * Stored values as the management API reads and clears them (the mock path writes them: hot/):
 * an endpoint's, and a project's (docs/stateful-mocks.md), per mock session ('' is the shared state).
 */
import type { StoreCore } from './core.js';
import type { Endpoints } from './endpoints.js';
import type { Projects } from './projects.js';

const asRecord = (rows: { name: string; value: string }[]): Record<string, string> => {
  const out: Record<string, string> = Object.create(null);
  for (const r of rows) out[r.name] = r.value;
  return out;
};

export class Storage {
  constructor(
    private readonly core: StoreCore,
    private readonly endpoints: Endpoints,
    private readonly projects: Projects,
  ) {}

  async getProject(ownerId: string, projectId: string, session = ''): Promise<Record<string, string>> {
    await this.projects.require(ownerId, projectId);
    const rows = await this.core.db
      .selectFrom('project_storage')
      .select(['name', 'value'])
      .where('project_id', '=', projectId)
      .where('session', '=', session)
      .orderBy('name')
      .execute();
    return asRecord(rows);
  }

  /** Empties the project's storage of one session, or (session undefined) of every session. */
  async clearProject(ownerId: string, projectId: string, session?: string): Promise<void> {
    await this.projects.require(ownerId, projectId);
    let q = this.core.db.deleteFrom('project_storage').where('project_id', '=', projectId);
    if (session !== undefined) q = q.where('session', '=', session);
    await q.execute();
    this.core.changed(projectId);
  }

  async get(ownerId: string, projectId: string, endpointId: string, session = ''): Promise<Record<string, string>> {
    await this.endpoints.require(ownerId, projectId, endpointId);
    const rows = await this.core.db
      .selectFrom('storage')
      .select(['name', 'value'])
      .where('endpoint_id', '=', endpointId)
      .where('session', '=', session)
      .orderBy('name')
      .execute();
    return asRecord(rows);
  }

  /** Empties the storage of one session, or (session undefined) of every session. */
  async clear(ownerId: string, projectId: string, endpointId: string, session?: string): Promise<void> {
    await this.endpoints.require(ownerId, projectId, endpointId);
    let q = this.core.db.deleteFrom('storage').where('endpoint_id', '=', endpointId);
    if (session !== undefined) q = q.where('session', '=', session);
    await q.execute();
    this.core.changed(projectId);
  }
}
