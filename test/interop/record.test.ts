/**
 * Record mode (docs/interop.mddocs/interop.md): with `recording` on, mock requests go to the
 * project's fallbackUrl through the egress, and each answer becomes an endpoint — or a rule keyed by
 * the query and body that differ — so a real API becomes a mock by using it once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(DIALECTS)('record mode (%s)', (dialect) => {
  let upstream: http.Server;
  let upstreamUrl: string;
  let hits = 0;
  let s: TestServer;
  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      hits++;
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        if (url.pathname === '/users') {
          const page = url.searchParams.get('page') ?? '1';
          res.writeHead(200, { 'content-type': 'application/json', 'x-page': page });
          res.end(JSON.stringify({ page: Number(page), users: page === '1' ? ['ada'] : ['lin'] }));
        } else if (url.pathname === '/login') {
          const ok = body.includes('"ada"');
          res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
          res.end(ok ? '{"token":"t-ada"}' : '{"error":"who?"}');
        } else if (url.pathname === '/feed') {
          // a stream: three events, the second 150 ms after the first, then the end
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('event: tick\nid: 1\ndata: {"n":1}\n\n');
          setTimeout(() => {
            res.write(': heartbeat\n\ndata: {{two}}\n\n');
            setTimeout(() => res.end('event: done\ndata: bye\n\n'), 100);
          }, 150);
        } else if (url.pathname === '/zipped') {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
          res.end(zlib.gzipSync('unzipped text'));
        } else {
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('nope');
        }
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const port = (upstream.address() as AddressInfo).port;
    upstreamUrl = `http://127.0.0.1:${port}`;
    s = await startTestServer(dialect, { allowTargets: [`127.0.0.1:${port}`] });
  });
  afterAll(async () => {
    await s.close();
    upstream.close();
  });

  it('records a loopback upstream, then answers from the recording', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const noTarget = await c.api('PATCH', `/api/projects/${p.id}`, { recording: true }, u.token);
    expect(noTarget.status).toBe(400);
    expect(noTarget.json.error.details[0].path).toBe('/recording');
    const on = await c.api('PATCH', `/api/projects/${p.id}`, { fallbackUrl: upstreamUrl, recording: true }, u.token);
    expect(on.json).toMatchObject({ recording: true, fallbackUrl: upstreamUrl });

    const before = hits;
    expect((await c.mock(p.id, 'GET', '/users', { query: 'page=1' })).json).toEqual({ page: 1, users: ['ada'] });
    expect((await c.mock(p.id, 'GET', '/users', { query: 'page=2' })).json).toEqual({ page: 2, users: ['lin'] });
    expect((await c.mock(p.id, 'GET', '/users', { query: 'page=2' })).status).toBe(200); // same variant: nothing new
    expect((await c.mock(p.id, 'POST', '/login', { body: '{"user":"ada"}' })).status).toBe(200);
    expect((await c.mock(p.id, 'POST', '/login', { body: '{"user":"eve"}' })).status).toBe(401);
    expect((await c.mock(p.id, 'GET', '/zipped')).text).toBe('unzipped text');
    expect(hits - before).toBe(6); // every request went through while recording
    await s.running.recorder.settled();

    const endpoints = (await c.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token)).json;
    expect(endpoints.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toEqual([
      'GET /users',
      'POST /login',
      'GET /zipped',
    ]);
    const users = endpoints[0];
    const rules = (await c.api('GET', `/api/projects/${p.id}/endpoints/${users.id}/rules`, undefined, u.token)).json;
    expect(rules.map((r: { conditions: unknown[] }) => r.conditions)).toEqual([
      [{ target: 'query', operator: 'equals', key: 'page', value: '1' }],
      [{ target: 'query', operator: 'equals', key: 'page', value: '2' }],
    ]);

    // recording off: the mock answers, the upstream is not called
    await c.api('PATCH', `/api/projects/${p.id}`, { recording: false }, u.token);
    const after = hits;
    expect((await c.mock(p.id, 'GET', '/users', { query: 'page=2' })).json).toEqual({ page: 2, users: ['lin'] });
    expect((await c.mock(p.id, 'GET', '/users', { query: 'page=1' })).json).toEqual({ page: 1, users: ['ada'] });
    expect((await c.mock(p.id, 'POST', '/login', { body: '{"user":"eve"}' })).status).toBe(401);
    expect((await c.mock(p.id, 'POST', '/login', { body: '{"user":"ada"}' })).json).toEqual({ token: 't-ada' });
    const zipped = await c.mock(p.id, 'GET', '/zipped');
    expect(zipped.text).toBe('unzipped text');
    expect(zipped.headers.get('content-encoding')).toBeNull();
    expect(hits).toBe(after);
    // clearing the fallback URL ends a recording
    const cleared = await c.api('PATCH', `/api/projects/${p.id}`, { recording: true }, u.token);
    expect(cleared.json.recording).toBe(true);
    const off = await c.api('PATCH', `/api/projects/${p.id}`, { fallbackUrl: null }, u.token);
    expect(off.json).toMatchObject({ recording: false, fallbackUrl: null });
  });

  it('records an upstream SSE answer as an events step with the delays it showed', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    await c.api('PATCH', `/api/projects/${p.id}`, { fallbackUrl: upstreamUrl, recording: true }, u.token);
    const live = await c.mock(p.id, 'GET', '/feed');
    expect(live.text).toContain('event: done');
    await s.running.recorder.settled();
    const [feed] = (await c.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token)).json;
    const [rule] = (await c.api('GET', `/api/projects/${p.id}/endpoints/${feed.id}/rules`, undefined, u.token)).json;
    expect(rule.name).toBe('recorded stream');
    const events = rule.response.steps[0].events;
    expect(events.map((e: { event?: string; id?: string; data?: string }) => [e.event, e.id, e.data])).toEqual([
      ['tick', '1', '{"n":1}'],
      [undefined, undefined, '\\{{two}}'],
      ['done', undefined, 'bye'],
    ]);
    // the delays observed (lower bounds: a timer never fires early; loose, as seen from a busy machine)
    expect(events[1].delayMs).toBeGreaterThanOrEqual(100);
    expect(events[2].delayMs).toBeGreaterThanOrEqual(50);

    // recording off: the mock streams the events, the `{{` as text
    await c.api('PATCH', `/api/projects/${p.id}`, { recording: false }, u.token);
    const replay = await c.mock(p.id, 'GET', '/feed');
    expect(replay.headers.get('content-type')).toContain('text/event-stream');
    expect(replay.text).toBe('event: tick\nid: 1\ndata: {"n":1}\n\ndata: {{two}}\n\nevent: done\ndata: bye\n\n');
  });

  it('records through the SSRF-safe egress: a target not allowed is never reached, nothing is recorded', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    await c.api('PATCH', `/api/projects/${p.id}`, { fallbackUrl: 'http://127.0.0.2:9/', recording: true }, u.token);
    const r = await c.mock(p.id, 'GET', '/anything');
    expect(r.status).toBe(502);
    await s.running.recorder.settled();
    expect((await c.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token)).json).toEqual([]);
  });
});
