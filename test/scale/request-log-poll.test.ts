/**
 * The shared request log's poller (src/runtime/request-log.ts) against a scripted log table:
 * PostgreSQL hands out sequence numbers at insert but shows rows at commit, so another process's
 * batch can become visible below the highest number already seen. Such late rows must still reach
 * live subscribers, exactly once, and a new subscriber must get everything committed after it
 * subscribed.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/domain/model.js';
import type { LogStore } from '../../src/runtime/ports.js';
import { RequestLog } from '../../src/runtime/request-log.js';

interface Row {
  seq: number;
  projectId: string;
  entry: RequestLogEntry;
}

function entry(id: string): RequestLogEntry {
  return {
    id,
    at: new Date().toISOString(),
    method: 'GET',
    path: '/x',
    query: '',
    headers: {},
    body: '',
    endpointId: null,
    ruleId: null,
    statusCode: 200,
    durationMs: 1,
    actions: [],
    rules: [],
  };
}

/** The request log's port (LogStore) over an in-memory table of committed rows. */
function fakeStore(rows: Row[]): LogStore {
  return {
    hot: { appendLog: async () => {} },
    logs: {
      maxSeq: async () => rows.reduce((m, r) => Math.max(m, r.seq), 0),
      since: async (after: number, limit: number, also: number[] = []) =>
        rows
          .filter((r) => r.seq > after || also.includes(r.seq))
          .sort((x, y) => x.seq - y.seq)
          .slice(0, limit),
      trim: async () => {},
      list: async () => [],
      clear: async () => {},
    },
  };
}

function newLog(rows: Row[]) {
  const log = new RequestLog(fakeStore(rows), pino({ level: 'silent' }), { keepPerProject: 1000, shared: true });
  const poll = () => (log as unknown as { poll(): Promise<void> }).poll();
  return { log, poll };
}

const ids = (got: RequestLogEntry[]) => got.map((e) => e.id);

describe('shared request log: polling other processes’ entries', () => {
  it('delivers a row that commits late, below rows already seen, exactly once', async () => {
    const rows: Row[] = [{ seq: 1, projectId: 'p', entry: entry('e1') }];
    const { log, poll } = newLog(rows);
    await poll(); // nobody listens yet: only the watermark moves (to 1)
    const got: RequestLogEntry[] = [];
    log.subscribe('p', (e) => got.push(e));

    // seq 2 is taken by a slow transaction, seq 3 commits first
    rows.push({ seq: 3, projectId: 'p', entry: entry('e3') });
    await poll();
    expect(ids(got)).toEqual(['e3']);

    rows.push({ seq: 2, projectId: 'p', entry: entry('e2') });
    await poll();
    expect(ids(got)).toEqual(['e3', 'e2']);

    await poll();
    await poll();
    expect(ids(got)).toEqual(['e3', 'e2']);
  });

  it('gives a new subscriber every entry committed after it subscribed, and none from before', async () => {
    const rows: Row[] = [
      { seq: 1, projectId: 'p', entry: entry('old1') },
      { seq: 2, projectId: 'p', entry: entry('old2') },
    ];
    const { log, poll } = newLog(rows);
    await poll();
    const got: RequestLogEntry[] = [];
    log.subscribe('p', (e) => got.push(e));
    // another process's flush lands before this process's first poll with a listener
    rows.push({ seq: 3, projectId: 'p', entry: entry('new3') });
    await poll();
    expect(ids(got)).toEqual(['new3']);
  });

  it('routes entries by project and skips the ones this process already pushed itself', async () => {
    const rows: Row[] = [];
    const { log, poll } = newLog(rows);
    await poll();
    const p: RequestLogEntry[] = [];
    const q: RequestLogEntry[] = [];
    log.subscribe('p', (e) => p.push(e));
    log.subscribe('q', (e) => q.push(e));
    const local = entry('local');
    log.record('p', local); // pushed at once to this process's subscribers
    expect(ids(p)).toEqual(['local']);
    rows.push({ seq: 1, projectId: 'p', entry: local }, { seq: 2, projectId: 'q', entry: entry('remote') });
    await poll();
    expect(ids(p)).toEqual(['local']);
    expect(ids(q)).toEqual(['remote']);
    await log.close();
  });
});
