/** Endpoint storage as the management API reads and clears it (the mock path writes it: hot/). */
import type { StoreCore } from './core.js';
import type { Endpoints } from './endpoints.js';

export class Storage {
  constructor(
    private readonly core: StoreCore,
    private readonly endpoints: Endpoints,
  ) {}

  async get(ownerId: string, projectId: string, endpointId: string, session = ''): Promise<Record<string, string>> {
    await this.endpoints.require(ownerId, projectId, endpointId);
    const rows = await this.core.db
      .selectFrom('storage')
      .select(['name', 'value'])
      .where('endpoint_id', '=', endpointId)
      .where('session', '=', session)
      .orderBy('name')
      .execute();
    const out: Record<string, string> = Object.create(null);
    for (const r of rows) out[r.name] = r.value;
    return out;
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
