/**
 * A failure the store recovers from by itself is logged: on SQLite, the merge of the collection
 * creates' journal (store/hot/sqlite-collections.ts) that fails is left for a later commit, the
 * commit's creates still answered (and the creates after it), and the server logs a warning (server.ts,
 * the store's `'problem'`).
 */
import { Writable } from 'node:stream';
import SqliteDatabase from 'better-sqlite3';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from '../../src/server.js';
import { MERGE_AT } from '../../src/store/hot/sqlite-collections.js';
import { freshDatabase, type TestDatabase } from '../helpers/databases.js';
import { TestClient, testConfig } from '../helpers/server.js';

describe('a failing merge of the creates’ journal (SQLite)', () => {
  let db: TestDatabase;
  let running: Running;
  const lines: { level: number; msg: string; err?: { message: string } }[] = [];
  beforeAll(async () => {
    db = await freshDatabase('sqlite');
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    running = await startServer(testConfig(db.url), pino({ level: 'warn' }, sink));
  });
  afterAll(async () => {
    await running?.close();
    await db?.drop();
  });

  it('answers the create whose commit failed to merge, logs a warning, and merges once it can', async () => {
    const c = new TestClient(running.url);
    const u = await c.user();
    const p = await c.project(u.token);
    expect((await c.api('POST', `/api/projects/${p.id}/collections`, { name: 'items' }, u.token)).status).toBe(201);
    const res = { collection: 'items', path: '/api/items' };
    expect((await c.api('POST', `/api/projects/${p.id}/resources`, res, u.token)).status).toBe(201);
    const json = { 'content-type': 'application/json' };
    const create = (n: number) => c.mock(p.id, 'POST', '/api/items', { headers: json, body: JSON.stringify({ n }) });
    expect((await create(0)).status).toBe(201);
    // a list merges the session's journal rows first: the creates below start from an empty part
    expect((await c.mock(p.id, 'GET', '/api/items')).status).toBe(200);
    // every insert into the items fails while this trigger is there (a merge is such an insert)
    const file = new SqliteDatabase(db.url.slice('sqlite:'.length));
    try {
      file.exec(
        `CREATE TRIGGER items_refused BEFORE INSERT ON collection_items BEGIN SELECT RAISE(ABORT, 'refused'); END`,
      );
      // the create that fills the session's part to MERGE_AT rows is answered, its commit's merge fails
      for (let n = 1; n <= MERGE_AT; n++) expect((await create(n)).status).toBe(201);
      const warned = lines.filter((l) => l.msg.includes('merging the collection creates’ journal'));
      expect(warned.length).toBeGreaterThan(0);
      expect(warned[0]).toMatchObject({ level: 40, err: { message: 'refused' } });
      // while merges fail, creates are still answered (the copy, read again, counts its journal rows)
      for (let n = MERGE_AT + 1; n <= MERGE_AT + 3; n++) expect((await create(n)).status).toBe(201);
      // a list needs the rows, so it fails with the merge: an error in the API's shape, no stack
      const failed = await c.mock(p.id, 'GET', '/api/items');
      expect(failed.status).toBe(500);
      expect(failed.json).toMatchObject({ error: { code: 'internal' } });
      expect(failed.text).not.toContain('refused');
      file.exec('DROP TRIGGER items_refused');
    } finally {
      file.close();
    }
    expect((await create(MERGE_AT + 4)).status).toBe(201);
    const list = await c.mock(p.id, 'GET', '/api/items');
    expect((list.json as { n: number }[]).map((x) => x.n)).toEqual(Array.from({ length: MERGE_AT + 5 }, (_, n) => n));
  });
});
