/** Accounts: email (stored in lower case), password hash, plan. */

import { isUniqueViolation } from '../domain/driver-errors.js';
import { AppError } from '../domain/errors.js';
import { newId, nowIso } from '../domain/ids.js';
import type { Plan, User } from '../domain/model.js';
import type { StoreCore } from './core.js';
import { toUser, type UserWithHash } from './rows.js';

export class Users {
  constructor(private readonly core: StoreCore) {}

  async create(email: string, passwordHash: string, plan: Plan = 'free'): Promise<User> {
    const row = {
      id: newId(),
      email: email.toLowerCase(),
      password_hash: passwordHash,
      plan,
      created_at: nowIso(),
    };
    try {
      await this.core.db.insertInto('users').values(row).execute();
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError('conflict', 'That email is already registered');
      throw e;
    }
    return { id: row.id, email: row.email, plan, createdAt: row.created_at };
  }

  async findByEmail(email: string): Promise<UserWithHash | null> {
    const r = await this.core.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', email.toLowerCase())
      .executeTakeFirst();
    return r ? toUser(r) : null;
  }

  async get(userId: string): Promise<User | null> {
    const u = await this.getWithHash(userId);
    if (!u) return null;
    const { passwordHash: _omit, ...user } = u;
    return user;
  }

  async getWithHash(userId: string): Promise<UserWithHash | null> {
    const r = await this.core.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    return r ? toUser(r) : null;
  }

  async setPassword(userId: string, passwordHash: string): Promise<void> {
    await this.core.db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
  }

  async setPlan(userId: string, plan: Plan): Promise<User | null> {
    await this.core.db.updateTable('users').set({ plan }).where('id', '=', userId).execute();
    return this.get(userId);
  }
}
