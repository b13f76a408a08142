/**
 * WebSocket mocks (docs/websocket.md) through the real server with the `ws` client: every trigger,
 * conditions on the upgrade request and the message, message steps with delays, close codes,
 * sequences per session, broadcasts and pushes scoped by channel and session, the sockets list,
 * 426 for plain HTTP, the log, and the limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DEFAULT_CAPS } from '../../src/domain/constants.js';
import { DIALECTS, freshDatabase, PG_URL, type TestDatabase } from '../helpers/databases.js';
import { expectError } from '../helpers/expect.js';
import { type ChildServer, spawnServer, startTestServer, type TestServer } from '../helpers/server.js';

/** A client socket that keeps every message it gets, and waits for them. */
async function connect(url: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(url, { headers });
  const got: string[] = [];
  let closed: { code: number; reason: string } | null = null;
  ws.on('message', (d) => got.push(d.toString()));
  ws.on('close', (code, reason) => {
    closed = { code, reason: reason.toString() };
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const until = async (n: number) => {
    await expect.poll(() => got.length, { timeout: 5000 }).toBeGreaterThanOrEqual(n);
    return got.slice(0, n);
  };
  return { ws, got, until, closed: () => closed };
}

describe.each(DIALECTS)('WebSocket mocks (%s)', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect, {
      defaultPlan: 'unlimited',
      caps: { ...DEFAULT_CAPS, socketsPerProject: 3, wsMessageBytes: 4096 },
    });
  });
  afterAll(() => s.close());
  const wsUrl = (pid: string, p: string) => `${s.running.url.replace('http', 'ws')}/m/${pid}${p}`;

  async function chat() {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const ep = await c.endpoint(u.token, p.id, { method: 'WS', path: '/chat/:room', channels: ['lobby'] });
    const rule = (body: Record<string, unknown>) => c.rule(u.token, p.id, ep.id, body);
    await rule({
      name: 'hello',
      on: 'connect',
      response: { steps: [{ body: 'welcome to {{request.params.room}} {{request.query.user}}' }] },
    });
    await rule({
      name: 'ping',
      priority: 1,
      conditions: [{ target: 'body', operator: 'equals', value: 'ping' }],
      response: { steps: [{ messages: [{ body: 'pong' }, { body: 'pong again', delayMs: 50 }] }] },
    });
    await rule({
      name: 'json',
      priority: 2,
      conditions: [{ target: 'body_json', key: 'type', operator: 'equals', value: 'say' }],
      actions: [{ type: 'broadcast', channel: 'lobby', body: '{{message.json.user}}: {{message.json.text}}' }],
      response: { steps: [{ body: '{"ok":true,"echo":"{{json message.json.text}}"}' }] },
    });
    await rule({
      name: 'counter',
      priority: 3,
      conditions: [{ target: 'body', operator: 'equals', value: 'next' }],
      response: { mode: 'loop', steps: [{ body: 'one' }, { body: 'two' }] },
    });
    await rule({
      name: 'bye',
      priority: 4,
      conditions: [{ target: 'body', operator: 'equals', value: 'bye' }],
      response: { steps: [{ body: 'see you', close: { code: 4001, reason: 'asked to leave' } }] },
    });
    await rule({
      name: 'gone',
      on: 'close',
      actions: [{ type: 'store_variable', name: 'left', value: '{{request.params.room}}' }],
    });
    return { c, u, p, ep };
  }

  it('greets on connect, answers messages by text and JSON, sends several with delays, closes with a code', async () => {
    const { c, u, p, ep } = await chat();
    const a = await connect(wsUrl(p.id, '/chat/r1?user=ann'));
    expect(await a.until(1)).toEqual(['welcome to r1 ann']);
    a.ws.send('ping');
    expect((await a.until(3)).slice(1)).toEqual(['pong', 'pong again']);
    a.ws.send(JSON.stringify({ type: 'say', user: 'ann', text: 'hi "all"' }));
    await a.until(5);
    expect(a.got).toContain('{"ok":true,"echo":"hi \\"all\\""}');
    expect(a.got).toContain('ann: hi "all"');
    a.ws.send('unknown');
    a.ws.send('bye');
    await expect.poll(() => a.closed()).toEqual({ code: 4001, reason: 'asked to leave' });
    expect(a.got.at(-1)).toBe('see you');
    // the close rule ran its action
    await expect
      .poll(
        async () => (await c.api('GET', `/api/projects/${p.id}/endpoints/${ep.id}/storage`, undefined, u.token)).json,
      )
      .toMatchObject({ left: 'r1' });
    // the log: connect, messages in and out, close
    const log = (await c.api('GET', `/api/projects/${p.id}/requests?limit=100`, undefined, u.token)).json as {
      kind?: string;
      direction?: string;
      event?: string;
      body: string;
      ruleId: string | null;
    }[];
    const ws = log.filter((e) => e.kind === 'ws');
    expect(ws.some((e) => e.event === 'connect' && e.direction === 'in')).toBe(true);
    expect(
      ws.some((e) => e.event === 'message' && e.direction === 'in' && e.body === 'ping' && e.ruleId !== null),
    ).toBe(true);
    expect(ws.some((e) => e.direction === 'out' && e.body === 'pong again')).toBe(true);
    expect(ws.some((e) => e.event === 'message' && e.body === 'unknown' && e.ruleId === null)).toBe(true);
    await expect
      .poll(async () =>
        (
          (await c.api('GET', `/api/projects/${p.id}/requests?limit=100`, undefined, u.token)).json as {
            event?: string;
          }[]
        ).some((e) => e.event === 'close'),
      )
      .toBe(true);
    const count = await c.api(
      'POST',
      `/api/projects/${p.id}/requests/count`,
      { method: 'WS', path: '/chat/r1' },
      u.token,
    );
    expect(count.json.count).toBeGreaterThan(5);
  });

  it('keeps a sequence per mock session, and scopes broadcasts and pushes by channel and session', async () => {
    const { c, u, p } = await chat();
    const a = await connect(wsUrl(p.id, '/chat/x'), { 'x-mockyard-session': 's1' });
    const b = await connect(wsUrl(p.id, '/chat/x?mockyard-session=s1'));
    const other = await connect(wsUrl(p.id, '/chat/x'), { 'x-mockyard-session': 's2' });
    await Promise.all([a.until(1), b.until(1), other.until(1)]);
    a.ws.send('next');
    await a.until(2);
    b.ws.send('next');
    await b.until(2);
    other.ws.send('next');
    await other.until(2);
    expect([a.got[1], b.got[1], other.got[1]]).toEqual(['one', 'two', 'one']);
    const sockets = (await c.api('GET', `/api/projects/${p.id}/sockets`, undefined, u.token)).json;
    expect(sockets).toHaveLength(3);
    expect(sockets[0]).toMatchObject({ path: '/chat/x', channels: ['default', 'lobby'] });
    const push = await c.api(
      'POST',
      `/api/projects/${p.id}/channels/lobby/messages`,
      { body: 'news', session: 's1' },
      u.token,
    );
    expect(push.status).toBe(202);
    expect(push.json).toEqual({ delivered: 2 });
    await Promise.all([a.until(3), b.until(3)]);
    expect([a.got[2], b.got[2]]).toEqual(['news', 'news']);
    expect(
      (await c.api('POST', `/api/projects/${p.id}/channels/nobody/messages`, { body: 'x' }, u.token)).json,
    ).toEqual({ delivered: 0 });
    expect(other.got).toHaveLength(2);
    // a fourth socket passes the project's limit (3 here)
    await expect(connect(wsUrl(p.id, '/chat/x'))).rejects.toThrow(/429/);
    for (const x of [a, b, other]) x.ws.close();
  });

  it('426 for plain HTTP, 404 for no endpoint, 1009 for a message past the limit', async () => {
    const { c, p } = await chat();
    expectError(await c.mock(p.id, 'GET', '/chat/r'), 426, 'upgrade_required');
    await expect(connect(wsUrl(p.id, '/nope'))).rejects.toThrow(/404/);
    const a = await connect(wsUrl(p.id, '/chat/big'));
    await a.until(1);
    a.ws.send('x'.repeat(5000));
    await expect.poll(() => a.closed()?.code).toBe(1009);
  });

  it('travels in an export: triggers, channels and message steps answer the same after an import', async () => {
    const { c, u, p } = await chat();
    const exp = (await c.api('GET', `/api/projects/${p.id}/export`, undefined, u.token)).json;
    const ws = exp.endpoints.find((e: { method: string }) => e.method === 'WS');
    expect(ws.channels).toEqual(['lobby']);
    expect(ws.rules.map((r: { on?: string }) => r.on ?? 'message').sort()).toEqual([
      'close',
      'connect',
      'message',
      'message',
      'message',
      'message',
    ]);
    const imp = await c.api('POST', '/api/projects/import', exp, u.token);
    expect(imp.status).toBe(201);
    const a = await connect(wsUrl(imp.json.id, '/chat/copy?user=bo'));
    expect(await a.until(1)).toEqual(['welcome to copy bo']);
    a.ws.send('ping');
    expect((await a.until(3)).slice(1)).toEqual(['pong', 'pong again']);
    a.ws.close();
  });

  it("imports a Mockoon environment's WebSocket routes: conversational rules on the message, streams from the connect", async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const env = {
      uuid: 'e',
      lastMigration: 32,
      name: 'sockets',
      endpointPrefix: '',
      routes: [
        {
          uuid: 'r1',
          type: 'ws',
          method: 'get',
          endpoint: 'chat',
          responseMode: null,
          streamingMode: null,
          streamingInterval: 0,
          responses: [
            {
              uuid: 'a',
              body: 'pong',
              default: false,
              rules: [{ target: 'body', modifier: '', value: 'ping', operator: 'equals' }],
            },
            { uuid: 'b', body: 'what?', default: true, rules: [] },
          ],
        },
        {
          uuid: 'r2',
          type: 'ws',
          method: 'get',
          endpoint: 'ticker',
          responseMode: null,
          streamingMode: 'UNICAST',
          streamingInterval: 10,
          responses: [
            { uuid: 'c', body: 'tick', default: true, rules: [] },
            { uuid: 'd', body: 'tock', default: false, rules: [] },
          ],
        },
      ],
    };
    const r = await c.api('POST', `/api/projects/${p.id}/import/mockoon`, env, u.token);
    expect(r.status, r.text).toBe(200);
    expect(r.json.created.map((e: { method: string; path: string }) => `${e.method} ${e.path}`).sort()).toEqual([
      'WS /chat',
      'WS /ticker',
    ]);
    const chat = await connect(wsUrl(p.id, '/chat'));
    chat.ws.send('ping');
    chat.ws.send('hello');
    expect(await chat.until(2)).toEqual(['pong', 'what?']);
    const ticker = await connect(wsUrl(p.id, '/ticker'));
    expect(await ticker.until(4)).toEqual(['tick', 'tock', 'tick', 'tock']);
    chat.ws.close();
    ticker.ws.close();
  });

  it('refuses bad channel names and triggers', async () => {
    const { c, u, p, ep } = await chat();
    expectError(
      await c.api('PATCH', `/api/projects/${p.id}/endpoints/${ep.id}`, { channels: ['no spaces'] }, u.token),
      400,
      'validation_failed',
    );
    const bad = await c.api(
      'POST',
      `/api/projects/${p.id}/endpoints/${ep.id}/rules`,
      { name: 'x', on: 'open' },
      u.token,
    );
    expectError(bad, 400, 'validation_failed');
  });
});

describe('WebSocket idle sockets and upgrade conditions (sqlite)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite', { defaultPlan: 'unlimited', caps: { ...DEFAULT_CAPS, wsIdleMs: 300 } });
  });
  afterAll(() => s.close());

  it('closes an idle socket (1000 idle) and reads the upgrade request’s headers in conditions', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const ep = await c.endpoint(u.token, p.id, { method: 'WS', path: '/feed' });
    await c.rule(u.token, p.id, ep.id, {
      name: 'vip',
      on: 'connect',
      conditions: [{ target: 'header', key: 'x-tier', operator: 'equals', value: 'vip' }],
      response: { steps: [{ body: 'hello vip' }] },
    });
    const url = `${s.running.url.replace('http', 'ws')}/m/${p.id}/feed`;
    const vip = await connect(url, { 'x-tier': 'vip' });
    expect(await vip.until(1)).toEqual(['hello vip']);
    const plain = await connect(url);
    // active sockets stay open; a quiet one is closed after the idle time
    const talking = setInterval(() => vip.ws.send('still here'), 100);
    await expect.poll(() => plain.closed(), { timeout: 5000 }).toEqual({ code: 1000, reason: 'idle' });
    expect(vip.closed()).toBeNull();
    expect(plain.got).toEqual([]);
    clearInterval(talking);
    vip.ws.close();
  });
});

describe.skipIf(!PG_URL)('WebSocket pushes across processes (postgres)', () => {
  let db: TestDatabase;
  let a: ChildServer;
  let b: ChildServer;
  beforeAll(async () => {
    db = await freshDatabase('postgres');
    [a, b] = await Promise.all([spawnServer(db.url), spawnServer(db.url)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  it('a push made on one process reaches a socket on the other, and a broadcast from a mock request too', async () => {
    const u = await a.client.user();
    const p = await a.client.project(u.token);
    const ep = await a.client.endpoint(u.token, p.id, { method: 'WS', path: '/feed' });
    await a.client.endpoint(u.token, p.id, { method: 'POST', path: '/announce' });
    const announce = (await a.client.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token)).json.find(
      (e: { path: string }) => e.path === '/announce',
    );
    await a.client.rule(u.token, p.id, announce.id, {
      name: 'tell',
      actions: [{ type: 'broadcast', channel: 'default', body: 'from http: {{request.body}}' }],
      response: { steps: [{ statusCode: 202 }] },
    });
    expect(ep.id).toBeTruthy();
    // the socket is on process b; the push is made on process a
    const client = await connect(`${b.base.replace('http', 'ws')}/m/${p.id}/feed`);
    await expect
      .poll(
        async () => {
          await a.client.api(
            'POST',
            `/api/projects/${p.id}/channels/default/messages`,
            { body: 'hello from a' },
            u.token,
          );
          return client.got.includes('hello from a');
        },
        { timeout: 10_000, interval: 300 },
      )
      .toBe(true);
    expect((await a.client.mock(p.id, 'POST', '/announce', { body: 'news' })).status).toBe(202);
    await expect.poll(() => client.got.includes('from http: news'), { timeout: 10_000 }).toBe(true);
    client.ws.close();
  });
});
