/**
 * Security III (issue 34): the red team's attacks that needed no more than an anonymous mock request
 * or a read key, each over HTTP against the real server, bounded and on loopback only. The table in
 * SECURITY.md names the test of each attack. The spellings of the admin and key checks are in
 * test/hardening/spellings.test.ts.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Running, startServer } from '../../src/server.js';
import { DIALECTS } from '../helpers/databases.js';
import { expectError } from '../helpers/expect.js';
import { request, startTestServer, TestClient, type TestServer, testConfig } from '../helpers/server.js';

/** A regex of counted repetitions: 194 characters, 32,000 compiled instructions. */
const REGEX_BOMB = `${'[^x]{0,1000}'.repeat(16)}d`;
/** Text on which an NFA simulation of REGEX_BOMB does its whole work (a 'd' only at the end). */
const abcText = (n: number) => {
  let s = '';
  let seed = 1;
  for (let i = 0; i < n - 1; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    s += 'abc'[seed % 3];
  }
  return `${s}d`;
};

/** The most the main thread was held while `work` ran, sampled every 10 ms. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 10);
    last = now;
  }, 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return worst;
}

describe('Security III: no unbounded work', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  test('attack 6: a regex too large to match fast is a 400 at save (and one over 512 characters)', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'POST', path: '/re' });
    const cond = (value: string) => ({ conditions: [{ target: 'body', operator: 'matches_regex', value }] });
    const r = await c.api(
      'POST',
      `/api/projects/${f.pid}/endpoints/${f.eid}/rules`,
      { name: 'bomb', ...cond(REGEX_BOMB) },
      f.token,
    );
    expectError(r, 400, 'validation_failed');
    expect(r.json.error.details[0].path).toBe('/conditions/0/value');
    expect(r.json.error.details[0].message).toMatch(/too large to match fast/);
    const long = await c.api(
      'POST',
      `/api/projects/${f.pid}/endpoints/${f.eid}/rules`,
      { name: 'long', ...cond('a'.repeat(513)) },
      f.token,
    );
    expectError(long, 400, 'validation_failed');
    expect(long.json.error.details[0].message).toMatch(/512 characters/);
    // ordinary patterns are fine, and match
    await c.rule(f.token, f.pid, f.eid, {
      ...cond('^\\{"id":[0-9]{1,10}\\}$'),
      response: { steps: [{ statusCode: 201 }] },
    });
    expect((await c.mock(f.pid, 'POST', '/re', { body: '{"id":42}' })).status).toBe(201);
  });

  test('attack 6b: rules full of regexes at the size limit against a 64 KiB body hold the thread < 100 ms', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'POST', path: '/heavy' });
    // near the limit of compiled size, the shape whose every instruction stays alive on this text
    const heavy = `a${'[^x]{0,40}a'.repeat(11)}[^x]{0,40}d`;
    for (let i = 0; i < 3; i++)
      await c.rule(f.token, f.pid, f.eid, {
        name: `heavy ${i}`,
        conditions: Array.from({ length: 5 }, (_, k) => ({
          target: 'body',
          operator: 'matches_regex',
          value: `${heavy}${'z'.repeat(k)}`,
        })),
        response: { steps: [{ statusCode: 299 }] },
      });
    const body = abcText(64 * 1024);
    const stall = await longestStall(async () => {
      for (let i = 0; i < 3; i++) {
        const r = await c.mock(f.pid, 'POST', '/heavy', { body });
        expect([200, 299]).toContain(r.status);
      }
    });
    expect(stall).toBeLessThan(100);
  });

  test('attack 6c: verification with a heavy pathPattern is a 400; one at the limit over long paths never stalls', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/*' });
    for (let i = 0; i < 3; i++) await c.mock(f.pid, 'GET', `/${abcText(2048)}`);
    const bomb = await c.api(
      'POST',
      `/api/projects/${f.pid}/requests/count`,
      { pathPattern: `.*${REGEX_BOMB}` },
      f.token,
    );
    expectError(bomb, 400, 'validation_failed');
    expect(bomb.json.error.details[0].path).toBe('/pathPattern');
    const heavy = `/a${'[^x]{0,40}a'.repeat(11)}[^x]{0,40}d`;
    const stall = await longestStall(async () => {
      const r = await c.api('POST', `/api/projects/${f.pid}/requests/count`, { pathPattern: heavy }, f.token);
      expect(r.status).toBe(200);
    });
    expect(stall).toBeLessThan(100);
  });

  test('attack 6d: an imported WireMock matcher too large to match fast imports its rule inactive, with a warning', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const doc = {
      mappings: [
        {
          request: { method: 'POST', urlPath: '/w', bodyPatterns: [{ matches: REGEX_BOMB }] },
          response: { status: 500 },
        },
        { request: { method: 'POST', urlPath: '/w' }, response: { status: 200, body: 'fine' } },
      ],
    };
    const r = await c.api('POST', `/api/projects/${p.id}/import/wiremock`, doc, u.token);
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.json.warnings)).toMatch(/rule imported inactive.*too large to match fast/);
    const endpoints = (await c.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token)).json;
    const e = (await c.api('GET', `/api/projects/${p.id}/endpoints/${endpoints[0].id}`, undefined, u.token)).json;
    const bombRule = e.rules.find((x: { conditions: { value?: string }[] }) =>
      x.conditions.some((k) => (k.value ?? '').includes('[^x]{0,1000}')),
    );
    expect(bombRule.active).toBe(false);
    // switching it on as it is is refused; the mock answers without it
    const on = await c.api(
      'PATCH',
      `/api/projects/${p.id}/endpoints/${e.id}/rules/${bombRule.id}`,
      { active: true },
      u.token,
    );
    expectError(on, 400, 'validation_failed');
    const started = performance.now();
    const answer = await request(`${s.running.url}/m/${p.id}/w`, { method: 'POST', body: abcText(3000) });
    expect(answer.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

/** 256 MiB of zeros, gzipped (about 260 KB), made a MiB at a time. */
async function gzipBomb(): Promise<Buffer> {
  const gz = zlib.createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gz.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((r) => gz.on('end', r));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < 256; i++) if (!gz.write(zeros)) await new Promise((r) => gz.once('drain', r));
  gz.end();
  await done;
  return Buffer.concat(chunks);
}

describe('Security III: record mode', () => {
  let upstream: http.Server;
  let s: TestServer;
  let bomb: Buffer;
  beforeAll(async () => {
    bomb = await gzipBomb();
    upstream = http.createServer((req, res) => {
      if (req.url === '/bomb') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        res.end(bomb);
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`upstream ${req.url}`);
      }
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const port = (upstream.address() as AddressInfo).port;
    s = await startTestServer('sqlite', { allowTargets: [`127.0.0.1:${port}`] });
  });
  afterAll(async () => {
    await s?.close();
    upstream?.close();
  });

  async function recording() {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    await c.api('PATCH', `/api/projects/${p.id}`, { fallbackUrl: url, recording: true }, u.token);
    return { c, u, p };
  }

  test('attack 8: a 260 KB gzip answer of 256 MiB is passed through, not inflated past 16 MiB, not recorded', async () => {
    const { c, u, p } = await recording();
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    }, 2);
    try {
      const raw = await new Promise<{ status: number; bytes: number }>((resolve, reject) => {
        http
          .get(`${s.running.url}/m/${p.id}/bomb`, (res) => {
            let bytes = 0;
            res.on('data', (d: Buffer) => {
              bytes += d.length;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
          })
          .on('error', reject);
      });
      expect(raw).toEqual({ status: 200, bytes: bomb.length });
      await s.running.recorder.settled();
    } finally {
      clearInterval(sampler);
    }
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
    expect((await c.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token)).json).toEqual([]);
    // the request log says why it was not recorded
    let entry: { warning?: string; proxied?: boolean } | undefined;
    for (let i = 0; i < 100 && !entry; i++) {
      entry = (await c.api('GET', `/api/projects/${p.id}/requests`, undefined, u.token)).json[0];
      if (!entry) await new Promise((r) => setTimeout(r, 20));
    }
    expect(entry).toMatchObject({ proxied: true, warning: expect.stringMatching(/^not recorded: .*16777216 bytes/) });
  });

  test('attack 12: a recorded literal /* stays a literal path, never a catch-all', async () => {
    const { c, u, p } = await recording();
    expect((await c.mock(p.id, 'GET', '/*')).text).toBe('upstream /*');
    await s.running.recorder.settled();
    await c.api('PATCH', `/api/projects/${p.id}`, { recording: false }, u.token);
    const endpoints = (await c.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token)).json;
    expect(endpoints.map((e: { path: string }) => e.path)).toEqual(['/%2A']);
    // the recording answers its own path; any other path still goes to the fallback
    expect((await c.mock(p.id, 'GET', '/*')).text).toBe('upstream /*');
    expect((await c.mock(p.id, 'GET', '/other')).text).toBe('upstream /other');
  });
});

describe('Security III: headers named in MOCKYARD_REDACT_HEADERS', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite', { redactHeaders: ['x-api-key', 'x-session-secret'] });
  });
  afterAll(() => s.close());

  test('attack 13: are stored and listed as [redacted], as Authorization and Cookie are; others are kept', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/who' });
    await c.mock(f.pid, 'GET', '/who', {
      headers: { 'x-api-key': 'k-123', 'X-Session-Secret': 's-456', cookie: 'c=1', 'x-tier': 'vip' },
    });
    const log = (await c.api('GET', `/api/projects/${f.pid}/requests`, undefined, f.token)).json;
    expect(log[0].headers).toMatchObject({
      'x-api-key': '[redacted]',
      'x-session-secret': '[redacted]',
      cookie: '[redacted]',
      'x-tier': 'vip',
    });
    expect(JSON.stringify(log)).not.toMatch(/k-123|s-456/);
  });
});

describe('Security III: request-log streams', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  /** Opens a stream on a raw socket; the socket is paused (it reads nothing) until `resume`. */
  function openRaw(pid: string, token: string) {
    const sock = net.connect(s.running.port, '127.0.0.1');
    sock.write(
      `GET /api/projects/${pid}/requests/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
    let received = 0;
    let head = '';
    const ended = new Promise<void>((r) => sock.on('close', () => r()));
    sock.on('data', (d: Buffer) => {
      if (received < 200) head += d.toString('latin1');
      received += d.length;
    });
    sock.on('error', () => {});
    return { sock, ended, received: () => received, head: () => head };
  }

  test('attack 9a: the 11th open stream of a user is 429; closing one frees a place', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/x' });
    const streams = Array.from({ length: 10 }, () => openRaw(f.pid, f.token));
    const poll = async (cond: () => boolean) => {
      const deadline = Date.now() + 5000;
      while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    };
    await poll(() => streams.every((x) => x.head().includes(': connected')));
    for (const x of streams) expect(x.head()).toMatch(/^HTTP\/1\.1 200/);
    const eleventh = await c.api('GET', `/api/projects/${f.pid}/requests/stream`, undefined, f.token);
    expectError(eleventh, 429, 'rate_limited');
    streams[0].sock.destroy();
    let again = openRaw(f.pid, f.token);
    await poll(() => again.head().length > 12);
    for (let i = 0; i < 50 && !again.head().startsWith('HTTP/1.1 200'); i++) {
      // the server sees the first socket close a moment later
      again.sock.destroy();
      await new Promise((r) => setTimeout(r, 20));
      again = openRaw(f.pid, f.token);
      await poll(() => again.head().length > 12);
    }
    expect(again.head()).toMatch(/^HTTP\/1\.1 200/);
    for (const x of [...streams, again]) x.sock.destroy();
  });

  test('attack 9b: a stream whose client does not read is closed once 1 MiB is queued for it', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'POST', path: '/big' });
    const slow = openRaw(f.pid, f.token);
    const deadline = Date.now() + 5000;
    while (!slow.head().includes(': connected') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    slow.sock.pause();
    const body = 'x'.repeat(60 * 1024);
    // ~12 MB of entries: more than the socket buffers of loopback hold
    for (let i = 0; i < 200; i++) await c.mock(f.pid, 'POST', '/big', { body });
    slow.sock.resume();
    const closed = await Promise.race([
      slow.ended.then(() => true),
      new Promise((r) => setTimeout(() => r(false), 10_000)),
    ]);
    expect(closed).toBe(true);
    expect(slow.received()).toBeLessThan(200 * body.length);
  });
});

describe('Security III: collection caps', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  test('attack 10: items over 64 KiB are 413 from anonymous mock callers; a session holds at most 10,000 items', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const seed = Array.from({ length: 9_999 }, (_, i) => ({ id: i + 1 }));
    expect((await c.api('POST', `/api/projects/${p.id}/collections`, { name: 'things', seed }, u.token)).status).toBe(
      201,
    );
    expect(
      (await c.api('POST', `/api/projects/${p.id}/resources`, { collection: 'things', path: '/things' }, u.token))
        .status,
    ).toBe(201);
    const huge = JSON.stringify({ blob: 'x'.repeat(900 * 1024) });
    for (let i = 0; i < 3; i++) {
      const r = await c.mock(p.id, 'POST', '/things', { body: huge, headers: { 'content-type': 'application/json' } });
      expectError(r, 413, 'payload_too_large');
    }
    const ok = await c.mock(p.id, 'POST', '/things', {
      body: '{"name":"last"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(ok.status).toBe(201);
    const full = await c.mock(p.id, 'POST', '/things', {
      body: '{"name":"one more"}',
      headers: { 'content-type': 'application/json' },
    });
    expectError(full, 413, 'payload_too_large');
    // a replace that would grow an item past the cap is refused too, and the item is unchanged
    const grown = await c.mock(p.id, 'PUT', '/things/1', {
      body: huge,
      headers: { 'content-type': 'application/json' },
    });
    expectError(grown, 413, 'payload_too_large');
    expect((await c.mock(p.id, 'GET', '/things/1')).json).toEqual({ id: 1 });
    // seeds: at most 10,000 items and 64 KiB an item
    const tooMany = Array.from({ length: 10_001 }, (_, i) => ({ id: i }));
    expectError(
      await c.api('POST', `/api/projects/${p.id}/collections`, { name: 'many', seed: tooMany }, u.token),
      400,
      'validation_failed',
    );
    const bigItem = [{ id: 1, blob: 'x'.repeat(70 * 1024) }];
    const r = await c.api('POST', `/api/projects/${p.id}/collections`, { name: 'big', seed: bigItem }, u.token);
    expectError(r, 400, 'validation_failed');
    expect(r.json.error.details[0].path).toBe('/seed/0');
  });
});

describe('Security III: copy-on-write session copies', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  test('attack 10b: 40 anonymous sessions of a 0.9 MB seed store only what each changed', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const seed = Array.from({ length: 900 }, (_, i) => ({ id: i + 1, text: 'z'.repeat(1000) }));
    expect((await c.api('POST', `/api/projects/${p.id}/collections`, { name: 'big', seed }, u.token)).status).toBe(201);
    await c.api('POST', `/api/projects/${p.id}/resources`, { collection: 'big', path: '/big' }, u.token);
    const json = { 'content-type': 'application/json' };
    for (let i = 0; i < 40; i++) {
      const session = { 'x-mockyard-session': `anon-${i}` };
      const list = await c.mock(p.id, 'GET', '/big', { headers: session });
      expect(list.json).toHaveLength(900);
      if (i % 10 === 0) {
        await c.mock(p.id, 'DELETE', '/big/1', { headers: session });
        await c.mock(p.id, 'PATCH', '/big/2', { headers: { ...session, ...json }, body: '{"text":"mine"}' });
        await c.mock(p.id, 'POST', '/big', { headers: { ...session, ...json }, body: '{"id":1,"text":"back"}' });
      }
    }
    const rows = await sql<{ n: number; bytes: number }>`SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(data)), 0) AS bytes
      FROM collection_items WHERE project_id = ${p.id}`.execute(s.running.store.db);
    // 4 sessions each hold 2 rows (item 2 changed in place; item 1 deleted, then created again at the
    // end, its tombstone replaced); the other 36 stored nothing
    expect(Number(rows.rows[0].n)).toBe(8);
    expect(Number(rows.rows[0].bytes)).toBeLessThan(10_000);
    const changed = await c.mock(p.id, 'GET', '/big', { headers: { 'x-mockyard-session': 'anon-0' } });
    expect(changed.json.map((x: { id: number }) => x.id).slice(0, 2)).toEqual([2, 3]);
    expect(changed.json[0].text).toBe('mine');
    expect(changed.json.at(-1)).toEqual({ id: 1, text: 'back' });
    const untouched = await c.mock(p.id, 'GET', '/big', { headers: { 'x-mockyard-session': 'anon-1' } });
    expect(untouched.json[0]).toEqual(seed[0]);
  });
});

describe('Security III: the login limiter', () => {
  let s: TestServer;
  beforeAll(async () => {
    // behind a proxy: X-Forwarded-For names the client address, so one test can be two clients
    s = await startTestServer('sqlite', { authRatePerMinute: 6, trustProxy: true });
  });
  afterAll(() => s.close());

  test('attack 11b: an address over its limit no longer counts attempts against the emails it names', async () => {
    const c = s.client;
    const victim = await c.user();
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const login = (email: string, password: string, ip: string) =>
      c.api('POST', '/api/auth/login', { email, password }, null, from(ip));
    for (let i = 0; i < 6; i++) await login(`x${i}@example.test`, 'wrong-password', '198.51.100.7');
    for (let i = 0; i < 20; i++) expect((await login(victim.email, 'wrong-password', '198.51.100.7')).status).toBe(429);
    // the victim, from their own address, is not locked out by the attacker's blocked attempts
    expect((await login(victim.email, victim.password, '203.0.113.9')).status).toBe(200);
  });
});

describe('Security III: imports obey the API caps', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  test('attack 14: an export with 1,501 stored names or a 200 KB value is refused, naming each; one within the caps imports', async () => {
    const c = s.client;
    const u = await c.user();
    const doc = (storage: Record<string, string>, projectStorage: Record<string, string>) => ({
      mockyard: 1,
      project: { name: 'imported' },
      endpoints: [{ method: 'GET', path: '/s', responseBody: '{{endpoint.a}}' }],
      storage: { 'GET /s': storage },
      projectStorage,
    });
    const many = Object.fromEntries(Array.from({ length: 1501 }, (_, i) => [`n${i}`, 'v']));
    const r1 = await c.api('POST', '/api/projects/import', doc(many, {}), u.token);
    expectError(r1, 400, 'validation_failed');
    expect(r1.json.error.details[0].message).toMatch(/1000 stored names/);
    const r2 = await c.api('POST', '/api/projects/import', doc({ a: 'x'.repeat(200 * 1024) }, {}), u.token);
    expectError(r2, 400, 'validation_failed');
    expect(r2.json.error.details[0].path).toBe('/storage/GET ~1s/a');
    const r3 = await c.api('POST', '/api/projects/import', doc({}, { big: 'y'.repeat(70 * 1024) }), u.token);
    expectError(r3, 400, 'validation_failed');
    expect(r3.json.error.details[0].path).toBe('/projectStorage/big');
    const ok = await c.api('POST', '/api/projects/import', doc({ a: 'stored' }, {}), u.token);
    expect(ok.status).toBe(201);
    expect((await c.mock(ok.json.id, 'GET', '/s')).text).toBe('stored');
  });
});

describe.skipIf(!DIALECTS.includes('postgres'))('Security III: login counts on several processes', () => {
  let a: TestServer;
  let b: Running;
  beforeAll(async () => {
    a = await startTestServer('postgres', { authRatePerMinute: 6 });
    b = await startServer(testConfig(a.db.url, { authRatePerMinute: 6 }), pino({ level: 'silent' }));
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  test('attack 11c: two processes of one PostgreSQL service count one address together', async () => {
    const other = new TestClient(b.url);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const c = i % 2 === 0 ? a.client : other;
      statuses.push(
        (await c.api('POST', '/api/auth/login', { email: `n${i}@example.test`, password: 'wrong-password' })).status,
      );
    }
    // 6 attempts a minute from this address in all, whichever process takes them
    expect(statuses.filter((s) => s === 401)).toHaveLength(6);
    expect(statuses.slice(6)).toEqual([429, 429, 429, 429]);
  });
});
