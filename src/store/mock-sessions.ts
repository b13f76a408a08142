/**
 * Mock sessions (`X-Mockyard-Session`): a session is the hit counters and stored values kept under
 * its id. Listed per endpoint, forgotten after an idle time, and capped per project (docs/limits.md).
 * Not to be confused with login tokens (login-tokens.ts).
 */
import { sql } from 'kysely';
import type { StoreCore } from './core.js';
import type { Endpoints } from './endpoints.js';

export class MockSessions {
  constructor(
    private readonly core: StoreCore,
    private readonly endpoints: Endpoints,
  ) {}

  /** Sessions seen on an endpoint (by hit counters or storage), most recently used first. */
  async list(ownerId: string, projectId: string, endpointId: string): Promise<{ session: string; lastSeen: string }[]> {
    await this.endpoints.require(ownerId, projectId, endpointId);
    const rows = await sql<{ session: string; touched: number | string }>`
      SELECT session, MAX(touched) AS touched FROM (
        SELECT h.session AS session, h.touched_at AS touched FROM rule_hits h JOIN rules r ON r.id = h.rule_id
          WHERE r.endpoint_id = ${endpointId} AND h.session <> ''
        UNION ALL
        SELECT session, touched_at AS touched FROM storage WHERE endpoint_id = ${endpointId} AND session <> ''
      ) s GROUP BY session ORDER BY MAX(touched) DESC`.execute(this.core.db);
    return rows.rows.map((r) => ({ session: r.session, lastSeen: new Date(Number(r.touched)).toISOString() }));
  }

  /** Forgets sessions idle for longer than `idleMs` (their counters and storage). */
  async expire(idleMs: number): Promise<void> {
    const before = Date.now() - idleMs;
    const { db } = this.core;
    await db.deleteFrom('rule_hits').where('session', '<>', '').where('touched_at', '<', before).execute();
    await db.deleteFrom('storage').where('session', '<>', '').where('touched_at', '<', before).execute();
    await db.deleteFrom('project_storage').where('session', '<>', '').where('touched_at', '<', before).execute();
    // a session's collection copy goes as a whole, once it has not been used for the idle time
    const idle = db
      .selectFrom('collection_sessions')
      .select(['project_id', 'collection', 'session'])
      .where('session', '<>', '')
      .where('touched_at', '<', before);
    for (const r of await idle.execute()) await this.forgetCollection(r.project_id, r.collection, r.session);
  }

  private async forgetCollection(projectId: string, collection: string, session: string): Promise<void> {
    for (const table of this.core.dialect.copyTables)
      await this.core.db
        .deleteFrom(table)
        .where('project_id', '=', projectId)
        .where('collection', '=', collection)
        .where('session', '=', session)
        .execute();
  }

  /** Forgets one mock session of a project: its sequence positions and stored values. */
  async forget(projectId: string, session: string): Promise<void> {
    if (session === '') return;
    const { db } = this.core;
    await db
      .deleteFrom('rule_hits')
      .where('session', '=', session)
      .where('rule_id', 'in', (eb) => eb.selectFrom('rules').select('id').where('project_id', '=', projectId))
      .execute();
    await db
      .deleteFrom('storage')
      .where('session', '=', session)
      .where('endpoint_id', 'in', (eb) => eb.selectFrom('endpoints').select('id').where('project_id', '=', projectId))
      .execute();
    await db.deleteFrom('project_storage').where('session', '=', session).where('project_id', '=', projectId).execute();
    for (const table of this.core.dialect.copyTables)
      await db.deleteFrom(table).where('session', '=', session).where('project_id', '=', projectId).execute();
  }

  /**
   * Holds every project to at most `cap` mock sessions in the database, forgetting the least
   * recently used beyond it (the sweep behind the runtime's SessionTracker, for several
   * processes). Answers how many sessions were forgotten.
   */
  async trim(cap: number): Promise<number> {
    const over = await sql<{ project_id: string; session: string }>`
      WITH s AS (
        SELECT r.project_id AS project_id, h.session AS session, h.touched_at AS touched
          FROM rule_hits h JOIN rules r ON r.id = h.rule_id WHERE h.session <> ''
        UNION ALL
        SELECT e.project_id AS project_id, st.session AS session, st.touched_at AS touched
          FROM storage st JOIN endpoints e ON e.id = st.endpoint_id WHERE st.session <> ''
        UNION ALL
        SELECT project_id, session, touched_at AS touched FROM project_storage WHERE session <> ''
        UNION ALL
        SELECT project_id, session, touched_at AS touched FROM collection_sessions WHERE session <> ''
      ), g AS (SELECT project_id, session, MAX(touched) AS touched FROM s GROUP BY project_id, session),
      ranked AS (
        SELECT project_id, session, ROW_NUMBER() OVER (PARTITION BY project_id ORDER BY touched DESC, session) AS n FROM g
      )
      SELECT project_id, session FROM ranked WHERE n > ${cap}`.execute(this.core.db);
    for (const r of over.rows) await this.forget(r.project_id, r.session);
    return over.rows.length;
  }
}
