/**
 * The request log's rows (src/runtime/request-log.ts keeps the queue and writes through
 * HotState.appendLog): trimming, owner-filtered reads, and the cross-process tail.
 */
import { sql } from 'kysely';
import type { RequestLogEntry } from '../domain/model.js';
import type { StoreCore } from './core.js';
import type { Projects } from './projects.js';

export class LogEntries {
  constructor(
    private readonly core: StoreCore,
    private readonly projects: Projects,
  ) {}

  /** Keeps the newest `keep` entries of a project. */
  async trim(projectId: string, keep: number): Promise<void> {
    await sql`DELETE FROM request_log WHERE project_id = ${projectId} AND seq <= (
      SELECT seq FROM request_log WHERE project_id = ${projectId} ORDER BY seq DESC LIMIT 1 OFFSET ${keep})`.execute(
      this.core.db,
    );
  }

  async list(
    ownerId: string,
    projectId: string,
    limit: number,
    afterSeq?: number,
  ): Promise<(RequestLogEntry & { seq: number })[]> {
    await this.projects.require(ownerId, projectId);
    let q = this.core.db.selectFrom('request_log').select(['seq', 'entry']).where('project_id', '=', projectId);
    if (afterSeq !== undefined) q = q.where('seq', '>', afterSeq);
    const rows = await q.orderBy('seq', 'desc').limit(limit).execute();
    return rows.map((r) => ({ ...(JSON.parse(r.entry) as RequestLogEntry), seq: Number(r.seq) }));
  }

  /**
   * Entries of any project newer than `afterSeq`, plus those with a sequence number in `alsoSeqs`
   * (for cross-process streaming: gaps below `afterSeq` that a slower transaction may still fill).
   */
  async since(
    afterSeq: number,
    limit: number,
    alsoSeqs: number[] = [],
  ): Promise<{ seq: number; projectId: string; entry: RequestLogEntry }[]> {
    const rows = await this.core.db
      .selectFrom('request_log')
      .select(['seq', 'project_id', 'entry'])
      .where((eb) =>
        alsoSeqs.length > 0 ? eb.or([eb('seq', '>', afterSeq), eb('seq', 'in', alsoSeqs)]) : eb('seq', '>', afterSeq),
      )
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ seq: Number(r.seq), projectId: r.project_id, entry: JSON.parse(r.entry) }));
  }

  /** Deletes the project's entries: all, or those with these sequence numbers. */
  async clear(ownerId: string, projectId: string, seqs?: number[]): Promise<void> {
    await this.projects.require(ownerId, projectId);
    const q = this.core.db.deleteFrom('request_log').where('project_id', '=', projectId);
    if (seqs === undefined) {
      await q.execute();
      return;
    }
    for (let i = 0; i < seqs.length; i += 500) await q.where('seq', 'in', seqs.slice(i, i + 500)).execute();
  }

  async maxSeq(): Promise<number> {
    const r = await this.core.db
      .selectFrom('request_log')
      .select((eb) => eb.fn.max('seq').as('m'))
      .executeTakeFirst();
    return Number(r?.m ?? 0);
  }
}
