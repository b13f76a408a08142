/**
 * Every resource limit of docs/limits.md, enforced over HTTP: rule contents (LIMITS), 1 MiB bodies,
 * 32 KiB headers, slow clients (headers, body, idle keep-alive), the request-log page size, projects
 * per user and endpoints per project, rules per plan, outbound requests in flight, login attempts.
 * The documentation itself is checked against the code: each env var and default is listed.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { LIMITS } from '../../src/domain/schemas.js';
import { ROOT, request, startTestServer, type TestClient, type TestServer } from '../helpers/server.js';
import { expectErrorShape, rawRequest } from './support.js';

function expect400(
  r: { status: number; text: string; headers: Headers; json: { error: { details?: { path: string }[] } } },
  at: string,
) {
  expect(r.status, r.text.slice(0, 300)).toBe(400);
  expectErrorShape(r);
  expect(
    r.json.error.details?.some((d) => d.path.startsWith(at)),
    `${at} in ${r.text.slice(0, 300)}`,
  ).toBe(true);
}

/** Opens a connection, sends `head`, then `drip` one byte at a time; resolves when the server closes it. */
function slowClient(port: number, head: string, drip: string, everyMs: number) {
  return new Promise<{ answer: string; closedAfterBytes: number }>((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    sock.on('connect', () => {
      sock.write(head);
      timer = setInterval(() => {
        if (sent >= drip.length || sock.destroyed) return;
        sock.write(drip[sent++]);
      }, everyMs);
    });
    sock.on('data', (d) => {
      answer += d.toString('latin1');
    });
    sock.on('error', () => {});
    sock.on('close', () => {
      clearInterval(timer);
      resolve({ answer, closedAfterBytes: sent });
    });
  });
}

function parseRaw(answer: string) {
  const split = answer.indexOf('\r\n\r\n');
  const head = answer.slice(0, split);
  const headers = new Headers();
  for (const line of head.split('\r\n').slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), headers, text: answer.slice(split + 4) };
}

describe('resource limits', () => {
  let srv: TestServer;
  let c: TestClient;
  let target: http.Server;
  let targetPort = 0;
  const held: http.ServerResponse[] = [];
  let arrived = 0;

  beforeAll(async () => {
    // a webhook target that holds every request until released
    target = http.createServer((_req, res) => {
      arrived++;
      held.push(res);
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
    targetPort = (target.address() as net.AddressInfo).port;
    srv = await startTestServer('sqlite', {
      headersTimeoutMs: 1000,
      requestTimeoutMs: 2000,
      keepAliveTimeoutMs: 500,
      maxProjectsPerUser: 3,
      maxEndpointsPerProject: 2,
      maxEgressInFlight: 2,
      requestLogKeep: 1000,
      allowTargets: [`127.0.0.1:${targetPort}`],
    });
    c = srv.client;
  });
  afterAll(async () => {
    for (const r of held) r.destroy();
    target?.closeAllConnections();
    target?.close();
    await srv?.close();
  });

  test('rule contents: every entry of LIMITS is enforced with a 400 naming the field', async () => {
    const f = await c.fixture({ method: 'POST', path: '/r' });
    const post = (body: Record<string, unknown>) =>
      c.api('POST', `/api/projects/${f.pid}/endpoints/${f.eid}/rules`, { name: 'r', ...body }, f.token);
    const step = (extra: Record<string, unknown> = {}) => ({ statusCode: 200, ...extra });
    const cond = { target: 'header', key: 'x', operator: 'exists' };
    const setVar = { type: 'set_variable', name: 'v', value: 'x' };
    const headers = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x-h${i}`, 'v']));
    const cases: [keyof typeof LIMITS, Record<string, unknown>, string][] = [
      ['conditionsPerRule', { conditions: Array(LIMITS.conditionsPerRule + 1).fill(cond) }, '/conditions'],
      ['stepsPerRule', { response: { steps: Array(LIMITS.stepsPerRule + 1).fill(step()) } }, '/response/steps'],
      ['actionsPerRule', { actions: Array(LIMITS.actionsPerRule + 1).fill(setVar) }, '/actions'],
      ['headersPerStep', { response: { steps: [step({ headers: headers(LIMITS.headersPerStep + 1) })] } }, '/response'],
      ['nameLength', { name: 'n'.repeat(LIMITS.nameLength + 1) }, '/name'],
      ['keyLength', { conditions: [{ ...cond, key: 'k'.repeat(LIMITS.keyLength + 1) }] }, '/conditions/0/key'],
      [
        'valueLength',
        { conditions: [{ target: 'body', operator: 'contains', value: 'v'.repeat(LIMITS.valueLength + 1) }] },
        '/conditions/0/value',
      ],
      ['bodyLength', { response: { steps: [step({ body: 'b'.repeat(LIMITS.bodyLength + 1) })] } }, '/response'],
      [
        'urlLength',
        { actions: [{ type: 'http_request', url: `https://example.test/${'u'.repeat(LIMITS.urlLength)}` }] },
        '/actions/0/url',
      ],
      ['maxDelayMs', { response: { steps: [step({ delayMs: LIMITS.maxDelayMs + 1 })] } }, '/response'],
      ['maxCount', { response: { steps: [step({ count: LIMITS.maxCount + 1 })] } }, '/response'],
      ['maxPriority', { priority: LIMITS.maxPriority + 1 }, '/priority'],
    ];
    expect(new Set(cases.map((x) => x[0])).size).toBe(cases.length);
    for (const [, body, at] of cases) expect400(await post(body), at);
    // the action timeout: at most 10 s (docs/limits.md)
    expect400(
      await post({ actions: [{ type: 'http_request', url: 'https://example.test/', timeoutMs: 10_001 }] }),
      '/actions/0/timeoutMs',
    );
    // at the limit is accepted
    const ok = await post({
      conditions: Array(LIMITS.conditionsPerRule).fill(cond),
      actions: Array(LIMITS.actionsPerRule).fill(setVar),
      response: { steps: [step({ headers: headers(LIMITS.headersPerStep), delayMs: 0, count: LIMITS.maxCount })] },
      priority: LIMITS.maxPriority,
    });
    expect(ok.status, ok.text.slice(0, 300)).toBe(201);
    // endpoint fields: contentType and path
    const ep = (body: Record<string, unknown>) => c.api('POST', `/api/projects/${f.pid}/endpoints`, body, f.token);
    expect400(
      await ep({ method: 'GET', path: '/ct', contentType: 'c'.repeat(LIMITS.contentTypeLength + 1) }),
      '/contentType',
    );
    expect400(await ep({ method: 'GET', path: `/${'p'.repeat(LIMITS.pathLength)}` }), '/path');
  });

  test('bodies over 1 MiB: 413 payload_too_large on the API and on mock traffic; 1 MiB passes the mock', async () => {
    const f = await c.fixture({ method: 'POST', path: '/big', responseBody: '{{request.body.length}}' });
    const over = `"${'x'.repeat(1024 * 1024)}"`;
    const api = await c.api('POST', '/api/projects', `{"name":${over}}`, f.token);
    expect(api.status).toBe(413);
    expectErrorShape(api);
    expect(api.json.error.code).toBe('payload_too_large');
    const mock = await c.mock(f.pid, 'POST', '/big', { body: 'y'.repeat(1024 * 1024 + 1) });
    expect(mock.status).toBe(413);
    expectErrorShape(mock);
    expect(mock.json.error.code).toBe('payload_too_large');
    const exact = await c.mock(f.pid, 'POST', '/big', { body: 'y'.repeat(1024 * 1024) });
    expect(exact.status).toBe(200);
    // nothing was created by the refused write
    expect((await c.api('GET', '/api/projects', undefined, f.token)).json).toHaveLength(1);
  });

  test('headers over 32 KiB: 431 header_too_large, on the API and the mock port', async () => {
    for (const p of ['/api/projects', '/m/any/x']) {
      const ans = await rawRequest(
        srv.running.port,
        `GET ${p} HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(33 * 1024)}\r\nConnection: close\r\n\r\n`,
      );
      expect(ans.status).toBe(431);
      const parsed = parseRaw(`${ans.head}\r\n\r\n${ans.body}`);
      expectErrorShape(parsed);
      expect(JSON.parse(parsed.text).error.code).toBe('header_too_large');
    }
    // just under the limit is served
    const ok = await request(`${srv.running.url}/healthz`, { headers: { 'x-big': 'h'.repeat(30 * 1024) } });
    expect(ok.status).toBe(200);
  });

  test('slow-loris: a client dripping its headers is answered 408 and cut off; others are served meanwhile', async () => {
    const drip = 'X-Slow: '.padEnd(100, 'a');
    const slow = slowClient(srv.running.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', drip, 100);
    // the service keeps answering while the slow client holds its socket
    expect((await request(`${srv.running.url}/healthz`)).status).toBe(200);
    const { answer, closedAfterBytes } = await slow;
    // headersTimeout 1 s, checked at least every 250 ms: cut long before the 10 s the drip would take
    expect(closedAfterBytes).toBeLessThan(drip.length);
    const parsed = parseRaw(answer);
    expect(parsed.status).toBe(408);
    expectErrorShape(parsed);
    expect(JSON.parse(parsed.text).error.code).toBe('request_timeout');
  });

  test('a client dripping its body is cut off at the request timeout (API and mock)', async () => {
    const f = await c.fixture({ method: 'POST', path: '/slow' });
    for (const p of [`/m/${f.pid}/slow`, '/api/projects']) {
      const head =
        `POST ${p} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${f.token}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 200\r\n\r\n';
      const { answer, closedAfterBytes } = await slowClient(srv.running.port, head, ' '.repeat(200), 100);
      expect(closedAfterBytes, answer).toBeLessThan(200);
      expect(parseRaw(answer).status, answer).toBe(408);
    }
  });

  test('an idle keep-alive connection is closed after keepAliveTimeout', async () => {
    const closed = await new Promise<{ answered: boolean; byServer: boolean }>((resolve) => {
      const sock = net.connect(srv.running.port, '127.0.0.1');
      let answered = false;
      const guard = setTimeout(() => {
        sock.destroy();
        resolve({ answered, byServer: false });
      }, 10_000);
      sock.on('connect', () => sock.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
      sock.on('data', (d) => {
        if (d.toString().startsWith('HTTP/1.1 200')) answered = true;
      });
      sock.on('error', () => {});
      sock.on('close', () => {
        clearTimeout(guard);
        resolve({ answered, byServer: true });
      });
    });
    expect(closed).toEqual({ answered: true, byServer: true });
  });

  test('request log: limit defaults to 50, is capped at 500, and must be a positive integer', async () => {
    const f = await c.fixture({ method: 'GET', path: '/log' });
    for (let i = 0; i < 520; i += 40) {
      await Promise.all(Array.from({ length: 40 }, () => c.mock(f.pid, 'GET', '/log')));
    }
    const list = (q: string) => c.api('GET', `/api/projects/${f.pid}/requests${q}`, undefined, f.token);
    let all = await list('?limit=100000');
    for (let i = 0; i < 50 && all.json.length < 500; i++) {
      await new Promise((r) => setTimeout(r, 100)); // the log is written in batches
      all = await list('?limit=100000');
    }
    expect(all.json).toHaveLength(500);
    expect((await list('')).json).toHaveLength(50);
    for (const bad of ['?limit=0', '?limit=-3', '?limit=abc', '?limit=1.5']) {
      const r = await list(bad);
      expect(r.status, bad).toBe(400);
      expectErrorShape(r);
    }
  });

  test('projects per user and endpoints per project: 422 limit_exceeded past the configured number', async () => {
    const u = await c.user();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await c.project(u.token, `p${i}`)).id);
    const fourth = await c.api('POST', '/api/projects', { name: 'p3' }, u.token);
    expect(fourth.status).toBe(422);
    expectErrorShape(fourth);
    expect(fourth.json.error.code).toBe('limit_exceeded');
    expect((await c.api('GET', '/api/projects', undefined, u.token)).json).toHaveLength(3);
    // another user has their own allowance
    const v = await c.user();
    expect((await c.api('POST', '/api/projects', { name: 'v' }, v.token)).status).toBe(201);
    // deleting frees a slot
    expect((await c.api('DELETE', `/api/projects/${ids[0]}`, undefined, u.token)).status).toBe(204);
    expect((await c.api('POST', '/api/projects', { name: 'again' }, u.token)).status).toBe(201);

    await c.endpoint(u.token, ids[1], { method: 'GET', path: '/1' });
    await c.endpoint(u.token, ids[1], { method: 'GET', path: '/2' });
    const third = await c.api('POST', `/api/projects/${ids[1]}/endpoints`, { method: 'GET', path: '/3' }, u.token);
    expect(third.status).toBe(422);
    expect(third.json.error.code).toBe('limit_exceeded');
    expect((await c.api('GET', `/api/projects/${ids[1]}/endpoints`, undefined, u.token)).json).toHaveLength(2);
  });

  test('rules per endpoint follow the plan: the 4th rule of a free user is 403 plan_limit_exceeded', async () => {
    const f = await c.fixture({ method: 'GET', path: '/rules' });
    for (let i = 0; i < 3; i++) await c.rule(f.token, f.pid, f.eid, { name: `r${i}` });
    const r = await c.api('POST', `/api/projects/${f.pid}/endpoints/${f.eid}/rules`, { name: 'r3' }, f.token);
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe('plan_limit_exceeded');
  });

  test('outbound requests in flight are bounded: past the bound an action fails at once', async () => {
    const f = await c.fixture({ method: 'GET', path: '/hook' });
    await c.rule(f.token, f.pid, f.eid, {
      name: 'webhook',
      actions: [{ type: 'http_request', url: `http://127.0.0.1:${targetPort}/in`, timeoutMs: 10_000 }],
      response: { steps: [{ statusCode: 200, body: 'done' }] },
    });
    const first = [c.mock(f.pid, 'GET', '/hook'), c.mock(f.pid, 'GET', '/hook')];
    for (let i = 0; i < 200 && arrived < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(arrived).toBe(2);
    // the bound (2) is taken: the third request's action fails without reaching the target
    const third = await c.mock(f.pid, 'GET', '/hook');
    expect(third.status).toBe(200);
    expect(arrived).toBe(2);
    for (const res of held.splice(0)) res.end('ok');
    for (const r of await Promise.all(first)) expect(r.status).toBe(200);
    let entries: { actions: { ok: boolean; error?: string }[] }[] = [];
    for (let i = 0; i < 50 && entries.length < 3; i++) {
      await new Promise((r) => setTimeout(r, 100));
      entries = (await c.api('GET', `/api/projects/${f.pid}/requests`, undefined, f.token)).json;
    }
    const outcomes = entries.map((e) => e.actions[0]);
    expect(outcomes.filter((a) => a.ok)).toHaveLength(2);
    const failed = outcomes.filter((a) => !a.ok);
    expect(failed).toHaveLength(1);
    expect(failed[0].error).toMatch(/busy/);
    // with the slots free again, the next call goes through
    const again = c.mock(f.pid, 'GET', '/hook');
    for (let i = 0; i < 200 && held.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    for (const res of held.splice(0)) res.end('ok');
    expect((await again).status).toBe(200);
    expect(arrived).toBe(3);
  });

  test('a catastrophic regex runs in linear time (coarse bound)', async () => {
    const f = await c.fixture({ method: 'POST', path: '/re' });
    await c.rule(f.token, f.pid, f.eid, {
      name: 'redos',
      conditions: [{ target: 'body', operator: 'matches_regex', value: '^(a+)+$' }],
      response: { steps: [{ statusCode: 418 }] },
    });
    // within the 64 KiB a match reads (docs/limits.md), so the `!` at the end is seen
    const r = await c.mock(f.pid, 'POST', '/re', { body: `${'a'.repeat(60_000)}!`, timeoutMs: 10_000 });
    expect(r.status).toBe(200); // no match, the default answer, and well within the timeout
  });
});

describe('login and register attempts are rate limited', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer('sqlite', { authRatePerMinute: 6 });
  });
  afterAll(async () => {
    await srv?.close();
  });

  test('past the per-address limit: 429 rate_limited, also for a correct password', async () => {
    const c = srv.client;
    const u = await c.user(); // 1 attempt
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await c.api('POST', '/api/auth/login', { email: u.email, password: 'wrong-password' })).status);
    }
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
    expect(statuses.at(-1)).toBe(429);
    const right = await c.api('POST', '/api/auth/login', { email: u.email, password: u.password });
    expect(right.status).toBe(429);
    expectErrorShape(right);
    expect(right.json.error.code).toBe('rate_limited');
  });
});

describe('docs/limits.md', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'limits.md'), 'utf8');
  const defaults = loadConfig({});
  const rows: [string, number][] = [
    ['MOCKYARD_MAX_PROJECTS', defaults.maxProjectsPerUser],
    ['MOCKYARD_MAX_ENDPOINTS', defaults.maxEndpointsPerProject],
    ['MOCKYARD_REQUEST_LOG_KEEP', defaults.requestLogKeep],
    ['MOCKYARD_AUTH_RATE_LIMIT', defaults.authRatePerMinute],
    ['MOCKYARD_HEADERS_TIMEOUT_MS', defaults.headersTimeoutMs],
    ['MOCKYARD_REQUEST_TIMEOUT_MS', defaults.requestTimeoutMs],
    ['MOCKYARD_KEEP_ALIVE_TIMEOUT_MS', defaults.keepAliveTimeoutMs],
    ['MOCKYARD_MAX_EGRESS_IN_FLIGHT', defaults.maxEgressInFlight],
    ['MOCKYARD_MAX_IMPORT_BYTES', defaults.maxImportBytes],
    ['MOCKYARD_IMPORT_TIMEOUT_MS', defaults.importTimeoutMs],
    ['MOCKYARD_IMPORT_NICE', defaults.importNice],
    ['MOCKYARD_MAX_RENDER_CHARS', defaults.caps.renderChars],
    ['MOCKYARD_MAX_STORED_VALUE_BYTES', defaults.caps.storedValueBytes],
    ['MOCKYARD_MAX_STORED_NAMES', defaults.caps.storedNames],
    ['MOCKYARD_MAX_SESSIONS', defaults.caps.sessionsPerProject],
    ['MOCKYARD_MAX_RECORD_BYTES', defaults.maxRecordBytes],
  ];
  test.each(rows)('%s is documented with its default %d', (name, value) => {
    const line = doc.split('\n').find((l) => l.includes(`\`${name}\``));
    expect(line, `a row for ${name}`).toBeDefined();
    const digits = (line ?? '').replace(/[_,\s]/g, '');
    expect(digits).toContain(String(value));
  });
  test.each(Object.entries(LIMITS))('LIMITS.%s = %d is documented', (name, value) => {
    const line = doc.split('\n').find((l) => l.includes(`\`${name}\``));
    expect(line, `a row for ${name}`).toBeDefined();
    expect((line ?? '').replace(/[_,\s]/g, '')).toContain(String(value));
  });
});
