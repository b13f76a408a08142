/**
 * The request log's queue against a real store: the newest `keepPerProject` entries of each
 * project are written in order, a flooded project is written at most every FLOOD_WRITE_MS by
 * the periodic flush (reads and shutdown still write everything), and headers are flattened and
 * redacted only on the way out.
 */
import http from 'node:http';
import net from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { seqId } from '../domain/ids.js';
import { openStore, type Store } from '../store/index.js';
import { headersFromRaw } from './context.js';
import { FLOOD_WRITE_MS, type LogRecord, RequestLog } from './request-log.js';

const KEEP = 100;
/** seqId(n) → `e<n>` */
const name = (e: { id: string }) => `e${Number.parseInt(e.id.slice(seqId(0).length - 1), 36)}`;

/** Record n: its id is seqId(n), listed by `written` as e<n>. */
function rec(n: number, rawHeaders: string[] = ['Host', 'mock.test']): LogRecord {
  return {
    seq: n,
    at: new Date(1_700_000_000_000 + n).toISOString(),
    method: 'GET',
    path: `/n/${n}`,
    query: '',
    rawHeaders,
    body: '',
    endpointId: null,
    ruleId: null,
    statusCode: 200,
    durationMs: 0.5,
    actions: [],
    rules: [],
    sentHeaders: { 'content-type': 'text/plain', 'content-length': 3 },
    sentBody: `n${n}`,
    sentShared: false,
    sentStep: null,
    sentDelay: 0,
  };
}

describe.each(DIALECTS)('RequestLog on %s', (dialect) => {
  let db: TestDatabase;
  let store: Store;
  let owner: string;
  const log = pino({ level: 'silent' });
  beforeAll(async () => {
    db = await freshDatabase(dialect);
    store = await openStore(db.url);
    owner = (await store.users.create(`log-${dialect}@example.com`, 'x')).id;
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  const project = async () => (await store.projects.create(owner, { name: 'p' })).id;
  const written = async (projectId: string) => (await store.logs.list(owner, projectId, 500)).map(name).reverse();

  it('writes the newest entries of each project, oldest first, and counts the ones it skipped', async () => {
    const a = await project();
    const b = await project();
    const rl = new RequestLog(store, log, { keepPerProject: KEEP });
    for (let n = 0; n < 250; n++) rl.record(a, rec(n));
    for (let n = 0; n < 3; n++) rl.record(b, rec(1000 + n));
    await rl.flush();
    expect(await written(a)).toEqual(Array.from({ length: KEEP }, (_, i) => `e${150 + i}`));
    expect(await written(b)).toEqual(['e1000', 'e1001', 'e1002']);
    expect(rl.coalesced).toBe(150);
    expect(rl.dropped).toBe(0);
    await rl.close();
  });

  it('writes a large batch in steps of 50 entries, letting other work run between them', async () => {
    const p = await project();
    const rl = new RequestLog(store, log, { keepPerProject: 1000 });
    for (let n = 0; n < 1000; n++) rl.record(p, rec(n));
    const hot = store.hot;
    const appendLog = hot.appendLog;
    const steps: number[] = [];
    hot.appendLog = (rows) => {
      steps.push(rows.length);
      return appendLog.call(hot, rows);
    };
    let stepsWhenOtherWorkRan = -1;
    setImmediate(() => {
      stepsWhenOtherWorkRan = steps.length;
    });
    try {
      await rl.flush();
    } finally {
      hot.appendLog = appendLog;
    }
    expect(steps).toEqual(Array(20).fill(50));
    // the event loop got a turn after the first step, long before the last
    expect(stepsWhenOtherWorkRan).toBe(1);
    expect(await written(p)).toHaveLength(500); // (written() reads the newest 500)
    expect((await written(p)).at(-1)).toBe('e999');
    await rl.close();
  });

  it('writes entries with large bodies in smaller steps: at most 64 Ki characters of bodies a step, one entry past it alone', async () => {
    const p = await project();
    const rl = new RequestLog(store, log, { keepPerProject: 1000 });
    // S7's answers: 4.2 KB each; then one entry whose answer alone is past a step's budget
    for (let n = 0; n < 200; n++) rl.record(p, { ...rec(n), sentBody: `${n}`.padEnd(4200, 'x') });
    rl.record(p, { ...rec(200), body: 'b'.repeat(30_000), sentBody: 'y'.repeat(40_000) });
    rl.record(p, rec(201));
    const hot = store.hot;
    const appendLog = hot.appendLog;
    const steps: { rows: number; chars: number }[] = [];
    hot.appendLog = (rows) => {
      steps.push({
        rows: rows.length,
        chars: rows.reduce((n, r) => n + r.entry.body.length + (r.entry.response?.body.length ?? 0), 0),
      });
      return appendLog.call(hot, rows);
    };
    try {
      await rl.flush();
    } finally {
      hot.appendLog = appendLog;
    }
    // 16 entries of 4.2 KB reach 64 Ki characters: steps of 16, the big entry closes the last one
    expect(steps.map((t) => t.rows)).toEqual([16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 9, 1]);
    for (const t of steps.slice(0, -2)) expect(t.chars - 4200).toBeLessThan(64 * 1024);
    expect(steps.at(-2)?.chars).toBe(8 * 4200 + 70_000);
    expect(await written(p)).toHaveLength(202);
    expect((await written(p)).at(-1)).toBe('e201');
    await rl.close();
  });

  it('holds a flooded project back from the periodic flush, but not from a read', async () => {
    const flooded = await project();
    const quiet = await project();
    const rl = new RequestLog(store, log, { keepPerProject: KEEP });
    for (let n = 0; n < 2 * KEEP; n++) rl.record(flooded, rec(n));
    await rl.flush(false); // first flood write: at once
    expect((await written(flooded)).at(-1)).toBe(`e${2 * KEEP - 1}`);

    for (let n = 2 * KEEP; n < 4 * KEEP; n++) rl.record(flooded, rec(n));
    rl.record(quiet, rec(5000));
    await rl.flush(false); // within the flood interval of the last write: only the quiet project
    expect(await written(quiet)).toEqual(['e5000']);
    expect((await written(flooded)).at(-1)).toBe(`e${2 * KEEP - 1}`);

    // a read flushes everything, so it sees every answered request
    const listed = await rl.list(owner, flooded, 3);
    expect(listed.map(name)).toEqual([`e${4 * KEEP - 1}`, `e${4 * KEEP - 2}`, `e${4 * KEEP - 3}`]);
    await rl.close();
  });

  it.each([
    ['one process', false, FLOOD_WRITE_MS.single],
    ['several processes', true, FLOOD_WRITE_MS.shared],
  ])('with %s, writes a held flooded project once its flood interval has passed', async (_, shared, every) => {
    const flooded = await project();
    let now = 1_000_000;
    const rl = new RequestLog(store, log, { keepPerProject: KEEP, shared, now: () => now });
    for (let n = 0; n < 2 * KEEP; n++) rl.record(flooded, rec(n));
    await rl.flush(false);
    for (let n = 2 * KEEP; n < 3 * KEEP + 1; n++) rl.record(flooded, rec(n));
    now += every - 1;
    await rl.flush(false);
    expect((await written(flooded)).at(-1)).toBe(`e${2 * KEEP - 1}`);
    now += 1;
    await rl.flush(false);
    expect((await written(flooded)).at(-1)).toBe(`e${3 * KEEP}`);
    await rl.close();
  });

  it.each([
    ['one process', false, FLOOD_WRITE_MS.single],
    ['several processes', true, FLOOD_WRITE_MS.shared],
  ])(
    'with %s, writes at most keepPerProject entries of a project per flood interval, though no flush held that many',
    async (_, shared, every) => {
      const busy = await project();
      const slow = await project();
      let now = 1_000_000;
      const rl = new RequestLog(store, log, { keepPerProject: KEEP, shared, now: () => now });
      const step = (3 * KEEP) / 10;
      let n = 0;
      const more = (count: number) => {
        for (const end = n + count; n < end; n++) rl.record(busy, rec(n));
      };
      // four flushes of 0.3 × KEEP entries within the interval: three are written; the fourth would take
      // the interval past KEEP, so it waits (with what comes after it) for the interval's end
      for (let flush = 0; flush < 4; flush++) {
        more(step);
        rl.record(slow, rec(10_000 + flush));
        await rl.flush(false);
        now += 1;
      }
      expect(await written(busy)).toHaveLength(3 * step);
      expect((await written(busy)).at(-1)).toBe(`e${3 * step - 1}`);
      // a project far below the cap is written every flush meanwhile
      expect(await written(slow)).toEqual(['e10000', 'e10001', 'e10002', 'e10003']);
      more(step);
      now = 1_000_000 + every - 1;
      await rl.flush(false);
      expect((await written(busy)).at(-1)).toBe(`e${3 * step - 1}`);
      // the interval has ended: what waited is written at once, and starts the next interval
      now += 1;
      await rl.flush(false);
      expect((await written(busy)).at(-1)).toBe(`e${5 * step - 1}`);
      more(KEEP / 2);
      await rl.flush(false);
      expect((await written(busy)).at(-1)).toBe(`e${5 * step - 1}`);
      // a read writes everything
      expect((await rl.list(owner, busy, 1)).map(name)).toEqual([`e${n - 1}`]);
      await rl.close();
    },
  );

  it('stores and streams headers flattened, with credentials redacted', async () => {
    const p = await project();
    const rl = new RequestLog(store, log, { keepPerProject: KEEP });
    const streamed: unknown[] = [];
    const off = rl.subscribe(p, (e) => streamed.push(e.headers));
    const headers = [
      'Host',
      'mock.test',
      'Authorization',
      'Bearer secret',
      'Cookie',
      'sid=1',
      'Proxy-Authorization',
      'Basic x',
      'X-Tag',
      'a',
      'x-tag',
      'b',
    ];
    rl.record(p, rec(1, headers));
    off();
    rl.record(p, rec(2, ['host', 'mock.test', 'authorization', 'Bearer other']));
    const expected = {
      host: 'mock.test',
      authorization: '[redacted]',
      cookie: '[redacted]',
      'proxy-authorization': '[redacted]',
      'x-tag': 'a, b',
    };
    expect(streamed).toEqual([expected]);
    const stored = await rl.list(owner, p, 10);
    expect(stored.map((e) => e.headers)).toEqual([{ host: 'mock.test', authorization: '[redacted]' }, expected]);
    expect(JSON.stringify(stored)).not.toMatch(/secret|other|sid=1|Basic x/);
    await rl.close();
  });

  it('gives back the request text of every entry unchanged, whether its slot copied it (small, big) or kept references (huge)', async () => {
    const p = await project();
    const rl = new RequestLog(store, log, { keepPerProject: 3 });
    const small = (n: number) => ({
      ...rec(n, ['Host', 'mock.test', 'X-Name', 'caf\u00e9 \u00ff']),
      path: `/caf%C3%A9/${n}`,
      query: 'a=1&b=%E2%9C%93',
      body: `{"text":"h\u00e9llo \u2713 \ud83c\udf89 ${n}"}`,
    });
    const big = (n: number) => ({
      ...rec(n, ['Host', 'mock.test', 'X-Big', 'x'.repeat(2000)]),
      path: `/big/${n}`,
      body: '\u2713'.repeat(400),
    });
    // past what a slot copies (256 KiB): kept by reference
    const huge = (n: number) => ({
      ...rec(n, ['Host', 'mock.test', 'X-Huge', 'x'.repeat(70_000)]),
      path: `/huge/${n}`,
      body: '\u2713'.repeat(65_536),
    });
    // slots are reused: small → big → huge → small → … in the same places, buffers growing and shrinking
    const sent = [small(1), big(2), huge(3), small(4), big(5), huge(6), small(7)];
    for (const e of sent) rl.record(p, e);
    const got = (await rl.list(owner, p, 10)).reverse();
    expect(got.map(name)).toEqual(['e5', 'e6', 'e7']);
    for (const [i, e] of got.entries()) {
      const want = sent[4 + i];
      expect(e.path).toBe(want.path);
      expect(e.query).toBe(want.query);
      expect(e.body).toBe(want.body);
      expect(e.headers).toEqual(headersFromRaw(want.rawHeaders));
    }
    await rl.close();
  });

  it('drops the oldest unwritten entries past the global bound, never more than it holds', async () => {
    const p = await project();
    const q = await project();
    const rl = new RequestLog(store, log, { keepPerProject: KEEP, maxQueue: 120 });
    for (let n = 0; n < 80; n++) rl.record(p, rec(n));
    for (let n = 0; n < 80; n++) rl.record(q, rec(1000 + n));
    expect(rl.dropped).toBe(40);
    await rl.flush();
    expect(await written(p)).toHaveLength(80);
    expect(await written(q)).toEqual(Array.from({ length: 40 }, (_, i) => `e${1040 + i}`));
    await rl.close();
  });

  it('drops an entry when the one past the global bound fills its ring, or lands in a wrapped one', async () => {
    // keep 4 per project, 5 queued at most. The old count took nothing from a ring that the push
    // had just filled while counting a drop: the queue then held more than its bound, and its
    // counter drifted below zero after the next flush.
    const p = await project();
    const q = await project();
    const rl = new RequestLog(store, log, { keepPerProject: 4, maxQueue: 5 });
    for (let n = 0; n < 3; n++) rl.record(p, rec(n));
    for (let n = 0; n < 2; n++) rl.record(q, rec(100 + n));
    rl.record(p, rec(3)); // fills p's ring and is the 6th queued: p's oldest goes
    expect(rl.dropped).toBe(1);
    await rl.flush();
    expect(await written(p)).toEqual(['e1', 'e2', 'e3']);
    expect(await written(q)).toEqual(['e100', 'e101']);
    // a wrapped ring: p holds 4 after overwrites, the next entry past the bound drops p's oldest
    const rl2 = new RequestLog(store, log, { keepPerProject: 4, maxQueue: 5 });
    const r = await project();
    for (let n = 10; n < 16; n++) rl2.record(r, rec(n)); // 4 kept (12..15), 2 coalesced
    rl2.record(q, rec(102)); // 5 queued
    rl2.record(r, rec(16)); // r is full: overwrites 12
    rl2.record(q, rec(103)); // 6th: q drops its oldest (102)
    expect([rl2.coalesced, rl2.dropped]).toEqual([3, 1]);
    await rl2.flush();
    expect(await written(r)).toEqual(['e13', 'e14', 'e15', 'e16']);
    expect((await written(q)).slice(-1)).toEqual(['e103']);
    await rl.close();
    await rl2.close();
  });
});

describe('headersFromRaw', () => {
  it("flattens raw header lines exactly as node's req.headers does (repeats, cookies, first-only headers)", async () => {
    const server = http.createServer((req, res) => {
      // node's own parser is the reference: its object, with the one array it makes (set-cookie) joined
      const node = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
      );
      res.end(JSON.stringify({ node, raw: headersFromRaw(req.rawHeaders) }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as net.AddressInfo;
    const lines = [
      'GET /x HTTP/1.1',
      'Host: a.test',
      'host: b.test',
      'Cookie: a=1',
      'cookie: b=2',
      'Set-Cookie: s=1',
      'Set-Cookie: s=2',
      'X-Tag: one',
      'x-TAG: two',
      'User-Agent: first',
      'User-Agent: second',
      'Authorization: Bearer t',
      'Authorization: Bearer u',
      'Content-Type: text/plain',
      'Content-Type: application/json',
      'Accept: a/b',
      'Accept: c/d',
      'Connection: close',
    ];
    const body = await new Promise<string>((resolve, reject) => {
      const sock = net.connect(port, '127.0.0.1', () => sock.write(`${lines.join('\r\n')}\r\n\r\n`));
      let got = '';
      sock.on('data', (c) => {
        got += c;
      });
      sock.on('end', () => resolve(got.slice(got.indexOf('\r\n\r\n') + 4)));
      sock.on('error', reject);
    });
    server.close();
    const { node, raw } = JSON.parse(body);
    expect(raw).toEqual(node);
    expect(raw).toMatchObject({ host: 'a.test', cookie: 'a=1; b=2', 'x-tag': 'one, two', 'user-agent': 'first' });
  });
});
