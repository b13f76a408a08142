/**
 * Rules of an endpoint, with their sequence state: one hit counter per rule and mock session
 * (`rule_hits`), from which `state` is derived (src/runtime/sequence.ts).
 */

import { AppError } from '../domain/errors.js';
import { newId, nowIso } from '../domain/ids.js';
import type { RuleRecord } from '../domain/model.js';
import type { RuleInput } from '../domain/validate.js';
import type { StoreCore } from './core.js';
import type { Endpoints } from './endpoints.js';
import { toRule } from './rows.js';

export class Rules {
  constructor(
    private readonly core: StoreCore,
    private readonly endpoints: Endpoints,
  ) {}

  private async hitsOf(ruleIds: string[], session = ''): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (ruleIds.length === 0) return out;
    const rows = await this.core.db
      .selectFrom('rule_hits')
      .select(['rule_id', 'hits'])
      .where('rule_id', 'in', ruleIds)
      .where('session', '=', session)
      .execute();
    for (const r of rows) out.set(r.rule_id, Number(r.hits));
    return out;
  }

  private columns(f: RuleInput) {
    return {
      name: f.name,
      priority: f.priority,
      active: this.core.dialect.bool(f.active),
      conditions: JSON.stringify(f.conditions),
      response: f.response === null ? null : JSON.stringify(f.response),
      actions: JSON.stringify(f.actions),
      trigger: f.on ?? null,
    };
  }

  async list(ownerId: string, projectId: string, endpointId: string, session = ''): Promise<RuleRecord[]> {
    await this.endpoints.require(ownerId, projectId, endpointId);
    const rows = await this.core.db
      .selectFrom('rules')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .orderBy('priority')
      .orderBy('seq')
      .execute();
    const hits = await this.hitsOf(
      rows.map((r) => r.id),
      session,
    );
    return rows.map((r) => toRule(r, hits.get(r.id) ?? 0));
  }

  count(endpointId: string): Promise<number> {
    return this.core.count(this.core.db, 'rules', 'endpoint_id', endpointId);
  }

  /**
   * Creates a rule unless the endpoint already has `limit` rules. The count and the insert run in
   * one transaction under a lock on the endpoint row, so concurrent creates cannot pass the limit.
   */
  async create(
    ownerId: string,
    projectId: string,
    endpointId: string,
    f: RuleInput,
    limit: number,
  ): Promise<RuleRecord> {
    await this.endpoints.require(ownerId, projectId, endpointId);
    const at = nowIso();
    const row = {
      id: newId(),
      endpoint_id: endpointId,
      project_id: projectId,
      ...this.columns(f),
      created_at: at,
      updated_at: at,
    };
    await this.core.db.transaction().execute(async (trx) => {
      await this.core.underLimit(
        trx,
        { table: 'endpoints', id: endpointId },
        { table: 'rules', column: 'endpoint_id' },
        limit,
        () => new AppError('plan_limit_exceeded', `Your plan allows ${limit} rules per endpoint`),
      );
      await trx.insertInto('rules').values(row).execute();
      await this.core.bump(trx, projectId);
    });
    this.core.changed(projectId);
    return toRule({ ...row, seq: 0 }, 0);
  }

  async get(
    ownerId: string,
    projectId: string,
    endpointId: string,
    ruleId: string,
    session = '',
  ): Promise<RuleRecord | null> {
    const r = await this.core.db
      .selectFrom('rules')
      .innerJoin('projects', 'projects.id', 'rules.project_id')
      .selectAll('rules')
      .where('rules.id', '=', ruleId)
      .where('rules.endpoint_id', '=', endpointId)
      .where('rules.project_id', '=', projectId)
      .where('projects.owner_id', '=', ownerId)
      .executeTakeFirst();
    if (!r) return null;
    const hits = await this.hitsOf([r.id], session);
    return toRule(r, hits.get(r.id) ?? 0);
  }

  async require(
    ownerId: string,
    projectId: string,
    endpointId: string,
    ruleId: string,
    session = '',
  ): Promise<RuleRecord> {
    const r = await this.get(ownerId, projectId, endpointId, ruleId, session);
    if (!r) throw new AppError('not_found', 'No such rule');
    return r;
  }

  async update(
    ownerId: string,
    projectId: string,
    endpointId: string,
    ruleId: string,
    f: RuleInput,
    resetSequence: boolean,
  ): Promise<RuleRecord> {
    await this.require(ownerId, projectId, endpointId, ruleId);
    await this.core.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('rules')
        .set({ ...this.columns(f), updated_at: nowIso() })
        .where('id', '=', ruleId)
        .execute();
      if (resetSequence) await trx.deleteFrom('rule_hits').where('rule_id', '=', ruleId).execute();
      await this.core.bump(trx, projectId);
    });
    this.core.changed(projectId);
    return this.require(ownerId, projectId, endpointId, ruleId);
  }

  /** Resets the sequence of a rule: for one session, or (session undefined) for every session. */
  async reset(
    ownerId: string,
    projectId: string,
    endpointId: string,
    ruleId: string,
    session?: string,
  ): Promise<RuleRecord> {
    await this.require(ownerId, projectId, endpointId, ruleId);
    let q = this.core.db.deleteFrom('rule_hits').where('rule_id', '=', ruleId);
    if (session !== undefined) q = q.where('session', '=', session);
    await q.execute();
    this.core.changed(projectId);
    return this.require(ownerId, projectId, endpointId, ruleId, session ?? '');
  }

  async delete(ownerId: string, projectId: string, endpointId: string, ruleId: string): Promise<void> {
    await this.require(ownerId, projectId, endpointId, ruleId);
    await this.core.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('rules').where('id', '=', ruleId).execute();
      await this.core.bump(trx, projectId);
    });
    this.core.changed(projectId);
  }
}
