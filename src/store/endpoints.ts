/** Endpoints of a project, reached only through their owned project. */

import { isUniqueViolation } from '../domain/driver-errors.js';
import { AppError } from '../domain/errors.js';
import { newId, nowIso } from '../domain/ids.js';
import type { Endpoint } from '../domain/model.js';
import type { EndpointInput } from '../domain/validate.js';
import type { StoreCore } from './core.js';
import type { Projects } from './projects.js';
import { toEndpoint } from './rows.js';

/** Endpoints in one insert statement at most (15 parameters each: far below either database's cap). */
const INSERT_CHUNK = 200;

/** An endpoint's columns that its input sets (on create and on update). */
function endpointColumns(e: EndpointInput) {
  return {
    method: e.method,
    path: e.path,
    route_key: e.routeKey,
    status_code: e.statusCode,
    response_body: e.responseBody,
    content_type: e.contentType,
    data: e.data ? JSON.stringify(e.data) : null,
    headers: Object.keys(e.headers).length > 0 ? JSON.stringify(e.headers) : null,
    validation: e.validation ? JSON.stringify(e.validation) : null,
    channels: e.channels.length > 0 ? JSON.stringify(e.channels) : null,
    graphql: e.graphql ? JSON.stringify(e.graphql) : null,
  };
}

function endpointRow(id: string, projectId: string, e: EndpointInput, at: string) {
  return { id, project_id: projectId, ...endpointColumns(e), created_at: at, updated_at: at };
}

const routeTaken = () => new AppError('conflict', 'An endpoint with this method and path already exists');

export class Endpoints {
  constructor(
    private readonly core: StoreCore,
    private readonly projects: Projects,
  ) {}

  async list(ownerId: string, projectId: string): Promise<Endpoint[]> {
    await this.projects.require(ownerId, projectId);
    const rows = await this.core.db
      .selectFrom('endpoints')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('seq')
      .execute();
    return rows.map(toEndpoint);
  }

  count(projectId: string): Promise<number> {
    return this.core.count(this.core.db, 'endpoints', 'project_id', projectId);
  }

  /**
   * Creates an endpoint unless the project already has `limit`: counted in the inserting
   * transaction under a lock on the project's row, so concurrent creates cannot pass the limit.
   */
  async create(
    ownerId: string,
    projectId: string,
    e: EndpointInput,
    limit = Number.POSITIVE_INFINITY,
  ): Promise<Endpoint> {
    await this.projects.require(ownerId, projectId);
    const { db } = this.core;
    const row = endpointRow(newId(), projectId, e, nowIso());
    try {
      await db.transaction().execute(async (trx) => {
        await this.core.underLimit(
          trx,
          { table: 'projects', id: projectId },
          { table: 'endpoints', column: 'project_id' },
          limit,
          () => new AppError('limit_exceeded', `At most ${limit} endpoints per project`),
        );
        await trx.insertInto('endpoints').values(row).execute();
        await this.core.bump(trx, projectId);
      });
    } catch (err) {
      throw isUniqueViolation(err) ? routeTaken() : err;
    }
    this.core.changed(projectId);
    return toEndpoint({ ...row, seq: 0 });
  }

  /**
   * Creates many endpoints in one transaction (an import): what `create` does for each, with one
   * lock, count and version move for them all and a multi-row insert per chunk. Answers, in order,
   * each one's endpoint or why it was not made: `conflict` (its route is taken) or `limit_exceeded`.
   */
  async createMany(
    ownerId: string,
    projectId: string,
    inputs: readonly EndpointInput[],
    limit = Number.POSITIVE_INFINITY,
  ): Promise<(Endpoint | AppError)[]> {
    await this.projects.require(ownerId, projectId);
    if (inputs.length === 0) return [];
    const at = nowIso();
    const rows = inputs.map((e) => endpointRow(newId(), projectId, e, at));
    const out: (Endpoint | AppError)[] = [];
    await this.core.db.transaction().execute(async (trx) => {
      let room = Number.POSITIVE_INFINITY;
      if (Number.isFinite(limit)) {
        await this.core.dialect.lockRow(trx, 'projects', projectId);
        room = limit - (await this.core.count(trx, 'endpoints', 'project_id', projectId));
      }
      // what conflicted takes no room: the next rows get it, as one create after another would
      const made = new Set<string>();
      let next = 0;
      while (next < rows.length && room > 0) {
        const fits = rows.slice(next, next + Math.min(INSERT_CHUNK, room));
        next += fits.length;
        const ids = await trx
          .insertInto('endpoints')
          .values(fits)
          .onConflict((oc) => oc.doNothing())
          .returning('id')
          .execute();
        for (const { id } of ids) made.add(id);
        room -= ids.length;
      }
      for (const [i, row] of rows.entries()) {
        if (made.has(row.id)) out.push(toEndpoint({ ...row, seq: 0 }));
        else if (i < next) out.push(routeTaken());
        else out.push(new AppError('limit_exceeded', `At most ${limit} endpoints per project`));
      }
      await this.core.bump(trx, projectId);
    });
    this.core.changed(projectId);
    return out;
  }

  async get(ownerId: string, projectId: string, endpointId: string): Promise<Endpoint | null> {
    const r = await this.core.db
      .selectFrom('endpoints')
      .innerJoin('projects', 'projects.id', 'endpoints.project_id')
      .selectAll('endpoints')
      .where('endpoints.id', '=', endpointId)
      .where('endpoints.project_id', '=', projectId)
      .where('projects.owner_id', '=', ownerId)
      .executeTakeFirst();
    return r ? toEndpoint(r) : null;
  }

  async require(ownerId: string, projectId: string, endpointId: string): Promise<Endpoint> {
    const e = await this.get(ownerId, projectId, endpointId);
    if (!e) throw new AppError('not_found', 'No such endpoint');
    return e;
  }

  async update(ownerId: string, projectId: string, endpointId: string, next: EndpointInput): Promise<Endpoint> {
    await this.require(ownerId, projectId, endpointId);
    try {
      await this.core.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('endpoints')
          .set({ ...endpointColumns(next), updated_at: nowIso() })
          .where('id', '=', endpointId)
          .where('project_id', '=', projectId)
          .execute();
        await this.core.bump(trx, projectId);
      });
    } catch (err) {
      throw isUniqueViolation(err) ? routeTaken() : err;
    }
    this.core.changed(projectId);
    return this.require(ownerId, projectId, endpointId);
  }

  async delete(ownerId: string, projectId: string, endpointId: string): Promise<void> {
    await this.require(ownerId, projectId, endpointId);
    await this.core.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('endpoints').where('id', '=', endpointId).where('project_id', '=', projectId).execute();
      await this.core.bump(trx, projectId);
    });
    this.core.changed(projectId);
  }
}
