/**
 * API keys for CI (docs/testing.md): scoped (`read` or `write`), optionally limited to projects and
 * to a time, stored only as hashes, revocable at once. The key itself is shown once, at creation.
 */

import { newId, nowIso } from '../domain/ids.js';
import type { ApiKey, Plan, User } from '../domain/model.js';
import type { StoreCore } from './core.js';

export type KeyScope = 'read' | 'write';

export type { ApiKey };

type Row = {
  id: string;
  name: string;
  scope: string;
  project_ids: string | null;
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
};

const toKey = (r: Row): ApiKey => ({
  id: r.id,
  name: r.name,
  scope: r.scope as KeyScope,
  projectIds: r.project_ids ? JSON.parse(r.project_ids) : null,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});

export class ApiKeys {
  /** when each key's last use was last written (at most once a minute per key) */
  private readonly touched = new Map<string, number>();

  constructor(private readonly core: StoreCore) {}

  async create(
    userId: string,
    keyHash: string,
    f: { name: string; scope: KeyScope; projectIds: string[] | null; expiresAt: string | null },
  ): Promise<ApiKey> {
    const row = {
      id: newId(),
      user_id: userId,
      name: f.name,
      key_hash: keyHash,
      scope: f.scope,
      project_ids: f.projectIds ? JSON.stringify(f.projectIds) : null,
      expires_at: f.expiresAt,
      created_at: nowIso(),
      last_used_at: null,
    };
    await this.core.db.insertInto('api_keys').values(row).execute();
    return toKey(row);
  }

  async list(userId: string): Promise<ApiKey[]> {
    const rows = await this.core.db
      .selectFrom('api_keys')
      .select(['id', 'name', 'scope', 'project_ids', 'expires_at', 'created_at', 'last_used_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute();
    return rows.map(toKey);
  }

  /** Revokes a key of the user; false when there is none. */
  async delete(userId: string, id: string): Promise<boolean> {
    const r = await this.core.db
      .deleteFrom('api_keys')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** The user and key of an unexpired key, by its hash; records its use. */
  async lookup(keyHash: string): Promise<{ user: User; key: ApiKey } | null> {
    const r = await this.core.db
      .selectFrom('api_keys')
      .innerJoin('users', 'users.id', 'api_keys.user_id')
      .select([
        'api_keys.id',
        'api_keys.name',
        'api_keys.scope',
        'api_keys.project_ids',
        'api_keys.expires_at',
        'api_keys.created_at',
        'api_keys.last_used_at',
        'users.id as user_id',
        'users.email',
        'users.plan',
        'users.created_at as user_created_at',
      ])
      .where('api_keys.key_hash', '=', keyHash)
      .executeTakeFirst();
    if (!r || (r.expires_at !== null && Date.parse(r.expires_at) <= Date.now())) return null;
    const now = Date.now();
    if (now - (this.touched.get(r.id) ?? 0) > 60_000) {
      this.touched.set(r.id, now);
      if (this.touched.size > 10_000) this.touched.clear();
      void this.core.db
        .updateTable('api_keys')
        .set({ last_used_at: new Date(now).toISOString() })
        .where('id', '=', r.id)
        .execute()
        .catch(() => {});
    }
    return {
      user: { id: r.user_id, email: r.email, plan: r.plan as Plan, createdAt: r.user_created_at },
      key: toKey(r),
    };
  }
}
