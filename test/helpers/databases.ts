/**
 * Databases for tests: a fresh SQLite file, or a fresh PostgreSQL database on the server named by
 * TEST_DATABASE_URL (CI sets it to the local server). In CI (CI=true) a missing
 * TEST_DATABASE_URL is an error, so a PostgreSQL run never passes by silently skipping.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export type DialectName = 'sqlite' | 'postgres';

export const PG_URL = process.env.TEST_DATABASE_URL ?? '';

if (process.env.CI === 'true' && !PG_URL) {
  throw new Error('TEST_DATABASE_URL must be set in CI: the PostgreSQL tests may not be skipped');
}

/** The dialects this run covers: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const DIALECTS: DialectName[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function freshDatabase(dialect: DialectName): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-test-'));
    return {
      url: `sqlite:${path.join(dir, 'db.sqlite')}`,
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `mockyard_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(PG_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
