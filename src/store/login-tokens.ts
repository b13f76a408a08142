/**
 * Login tokens (the dashboard's and the API's bearer tokens), stored only as hashes. Not to be
 * confused with mock sessions (`X-Mockyard-Session`, mock-sessions.ts). The table is `sessions`.
 */

import { nowIso } from '../domain/ids.js';
import type { Plan, User } from '../domain/model.js';
import type { StoreCore } from './core.js';

export class LoginTokens {
  constructor(private readonly core: StoreCore) {}

  async create(tokenHash: string, userId: string, expiresAt: Date): Promise<void> {
    await this.core.db
      .insertInto('sessions')
      .values({ token_hash: tokenHash, user_id: userId, created_at: nowIso(), expires_at: expiresAt.toISOString() })
      .execute();
  }

  /** The user of an unexpired token, or null. */
  async user(tokenHash: string): Promise<User | null> {
    const r = await this.core.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select(['users.id', 'users.email', 'users.plan', 'users.created_at', 'sessions.expires_at'])
      .where('sessions.token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (!r || Date.parse(r.expires_at) <= Date.now()) return null;
    return { id: r.id, email: r.email, plan: r.plan as Plan, createdAt: r.created_at };
  }

  async delete(tokenHash: string): Promise<void> {
    await this.core.db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
  }

  /** Revokes every token of the user except `keepTokenHash`. */
  async deleteOthers(userId: string, keepTokenHash: string): Promise<void> {
    await this.core.db
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('token_hash', '!=', keepTokenHash)
      .execute();
  }
}
