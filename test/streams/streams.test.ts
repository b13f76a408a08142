/**
 * Streamed answers (docs/streams.md): Server-Sent Events read with an SSE parser (framing, delays,
 * templating, repeat, keep-open, faults) and chunked bodies. LLM answers read by the official
 * clients: llm.test.ts.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

interface Arrival {
  at: number;
  event?: string;
  id?: string;
  data?: string;
  retry?: string;
}

/** Reads an SSE answer: every event with the time it arrived (ms from the request), and whether it ended. */
function readSse(url: string, init: { method?: string; body?: string; stopAfter?: number; waitMs?: number } = {}) {
  return new Promise<{
    status: number;
    headers: http.IncomingHttpHeaders;
    events: Arrival[];
    ended: boolean;
    error?: string;
  }>((resolve) => {
    const started = performance.now();
    const events: Arrival[] = [];
    const req = http.request(
      url,
      { method: init.method ?? 'GET', headers: { 'content-type': 'application/json' } },
      (res) => {
        let buf = '';
        let ended = false;
        const done = (error?: string) => {
          clearTimeout(timer);
          req.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, events, ended, error });
        };
        const timer = setTimeout(() => done(), init.waitMs ?? 5000);
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          for (let i = buf.indexOf('\n\n'); i !== -1; i = buf.indexOf('\n\n')) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const e: Arrival = { at: performance.now() - started };
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) continue;
              const c = line.indexOf(':');
              const field = c === -1 ? line : line.slice(0, c);
              const value = c === -1 ? '' : line.slice(c + 1).replace(/^ /, '');
              if (field === 'data') data.push(value);
              else if (field === 'event' || field === 'id' || field === 'retry') e[field] = value;
            }
            if (data.length > 0) e.data = data.join('\n');
            if (data.length > 0 || e.event) events.push(e);
            if (init.stopAfter !== undefined && events.length >= init.stopAfter) done();
          }
        });
        res.on('end', () => {
          ended = true;
          done();
        });
        res.on('error', (err) => done(err.message));
      },
    );
    req.on('error', (err) => resolve({ status: 0, headers: {}, events, ended: false, error: err.message }));
    req.end(init.body);
  });
}

describe('streams', () => {
  let s: TestServer;
  let token: string;
  let pid: string;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
    const u = await s.client.user();
    token = u.token;
    await s.client.api('PATCH', `/api/admin/users/${u.id}`, { plan: 'business' }, 'test-admin-token-0123456789');
    pid = (await s.client.project(token, 'streams')).id;
  });
  afterAll(() => s.close());

  async function endpointWithStep(method: string, path: string, step: Record<string, unknown>) {
    const e = await s.client.endpoint(token, pid, { method, path });
    await s.client.rule(token, pid, e.id, { response: { steps: [{ statusCode: 200, ...step }] } });
    return `${s.client.base}/m/${pid}${path}`;
  }

  it('events: SSE framing, delays, templates with stream.index and stream.round, repeat', async () => {
    const url = await endpointWithStep('GET', '/feed', {
      events: [
        { event: 'tick', id: 'first', data: 'n={{stream.index}} r={{stream.round}} q={{request.query.q}}' },
        { data: 'two\nlines', delayMs: 150, retry: 3000 },
        { data: { a: [1, 2], b: 'x' }, comment: 'an object is JSON' },
      ],
      repeat: 2,
    });
    const r = await readSse(`${url}?q=hi`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(r.headers['cache-control']).toBe('no-cache');
    expect(r.ended).toBe(true);
    expect(r.events.map((e) => e.data)).toEqual([
      'n=0 r=0 q=hi',
      'two\nlines',
      '{"a":[1,2],"b":"x"}',
      'n=3 r=1 q=hi',
      'two\nlines',
      '{"a":[1,2],"b":"x"}',
    ]);
    expect(r.events[0]).toMatchObject({ event: 'tick', id: 'first' });
    expect(r.events[3]).toMatchObject({ event: 'tick', id: 'first' });
    expect(r.events[1].retry).toBe('3000');
    // the second event waits 150 ms after the first. Seen from the client the gap can look shorter (the
    // first event may reach it late on a busy machine), so the bound is loose: without the delay it is ~0.
    expect(r.events[1].at - r.events[0].at).toBeGreaterThanOrEqual(100);
    expect(r.events[4].at - r.events[3].at).toBeGreaterThanOrEqual(100);
    // the log entry says how many events went out, and holds what was written
    let entry: { response?: { events?: number; eventTimes?: number[]; body: string } } | undefined;
    for (let i = 0; i < 100 && !entry?.response?.events; i++) {
      const list = (await s.client.api('GET', `/api/projects/${pid}/requests`, undefined, token)).json;
      entry = list.find((e: { path: string }) => e.path === '/feed');
      if (!entry?.response?.events) await new Promise((res) => setTimeout(res, 20));
    }
    expect(entry?.response?.events).toBe(6);
    expect(entry?.response?.body).toContain('data: n=3 r=1 q=hi');
    // … and when each went out, after the head: the second 150 ms after the first (the server's clock)
    const times = entry?.response?.eventTimes ?? [];
    expect(times).toHaveLength(6);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(145);
    expect([...times].sort((x, y) => x - y)).toEqual(times);
  });

  it('shutdown ends a kept-open stream at once instead of waiting for it', async () => {
    const own = await startTestServer('sqlite');
    try {
      const f = await own.client.fixture({ method: 'GET', path: '/forever' });
      await own.client.rule(f.token, f.pid, f.eid, {
        response: { steps: [{ statusCode: 200, events: [{ data: 'hi' }], keepOpen: true }] },
      });
      let received = '';
      const ended = new Promise<boolean>((resolve) => {
        http
          .get(`${own.client.base}/m/${f.pid}/forever`, (res) => {
            res.setEncoding('utf8');
            res.on('data', (c: string) => {
              received += c;
            });
            res.on('end', () => resolve(true));
            res.on('error', () => resolve(false));
          })
          .on('error', () => resolve(false));
      });
      // the stream is open once its first event has arrived
      for (let i = 0; i < 200 && !received.includes('data: hi'); i++) await new Promise((r) => setTimeout(r, 10));
      expect(received).toContain('data: hi');
      const started = performance.now();
      await own.close();
      expect(await ended).toBe(true);
      // the drain waits up to 8 s for requests in flight (and 5 s of keep-alive); a stream is ended, not waited for
      expect(performance.now() - started).toBeLessThan(3000);
    } finally {
      await own.close().catch(() => {});
    }
  });

  it('events: keepOpen keeps the stream after the last event; a fault resets it there; POST streams too', async () => {
    const open = await endpointWithStep('GET', '/open', { events: [{ data: 'hello' }], keepOpen: true });
    const kept = await readSse(open, { waitMs: 400 });
    expect(kept.events.map((e) => e.data)).toEqual(['hello']);
    expect(kept.ended).toBe(false);
    const reset = await endpointWithStep('POST', '/reset', {
      events: [{ data: 'one' }, { data: 'two', delayMs: 20 }, { fault: 'connection_reset' }, { data: 'never' }],
    });
    const cut = await readSse(reset, { method: 'POST', body: '{}' });
    expect(cut.events.map((e) => e.data)).toEqual(['one', 'two']);
    expect(cut.ended && cut.error === undefined).toBe(false);
  });

  it('clients that leave stop their streams’ timers at once (no timer is left behind)', async () => {
    // a long wait before the second event, and a kept-open stream's heartbeat: both are timers
    const slow = await endpointWithStep('GET', '/waiting', { events: [{ data: 'a' }, { data: 'b', delayMs: 60_000 }] });
    const open = await endpointWithStep('GET', '/open2', { events: [{ data: 'a' }], keepOpen: true });
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const clients = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) =>
          new Promise<http.ClientRequest>((resolve, reject) => {
            const req = http.get(i % 2 ? slow : open, (res) => res.once('data', () => resolve(req)));
            req.on('error', reject);
          }),
      ),
    );
    // each stream waits on a timer of its own while its client is there
    expect(timers()).toBeGreaterThanOrEqual(20);
    for (const c of clients) c.destroy();
    await expect.poll(timers, { timeout: 5000, interval: 20 }).toBeLessThanOrEqual(before + 2);
  });

  it('events: an object is sent as its JSON, braces and all, never read as a template', async () => {
    const url = await endpointWithStep('GET', '/literal', { events: [{ data: { text: '{{request.path}}', n: 1 } }] });
    const r = await readSse(url);
    expect(r.events.map((e) => e.data)).toEqual(['{"text":"{{request.path}}","n":1}']);
  });

  it('chunks: the body in pieces, one every intervalMs', async () => {
    const url = await endpointWithStep('GET', '/slow', {
      body: 'abcdefghij',
      headers: { 'content-type': 'text/plain' },
      chunks: { size: 4, intervalMs: 100 },
    });
    const arrivals: { at: number; text: string }[] = [];
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      http
        .get(url, (res) => {
          expect(res.headers['transfer-encoding']).toBe('chunked');
          res.setEncoding('utf8');
          res.on('data', (c: string) => arrivals.push({ at: performance.now() - started, text: c }));
          res.on('end', () => resolve());
        })
        .on('error', reject);
    });
    expect(arrivals.map((a) => a.text).join('')).toBe('abcdefghij');
    expect(arrivals.length).toBe(3);
    expect(arrivals[2].at - arrivals[0].at).toBeGreaterThanOrEqual(190);
  });

  it('a step streams one way at most', async () => {
    const e = await s.client.endpoint(token, pid, { method: 'GET', path: '/two-ways' });
    const r = await s.client.api(
      'POST',
      `/api/projects/${pid}/endpoints/${e.id}/rules`,
      {
        name: 'x',
        response: { steps: [{ statusCode: 200, events: [{ data: 'a' }], chunks: { size: 1, intervalMs: 1 } }] },
      },
      token,
    );
    expect(r.status).toBe(400);
    expect(r.json.error.details[0].path).toBe('/response/steps/0');
  });
});
