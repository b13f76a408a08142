/**
 * A prepared head against node's own writeHead, on this node: a real server answers each request
 * twice over — once through `writeHead` + `end`, once through `sendPrepared` (falling back to
 * `writeHead` as the mock path does) — and a raw socket compares the bytes, the Date line aside.
 * Every case runs with a body of UTF-8 beyond ASCII and with an ASCII one: both are sent as the
 * head's tail (one chunk), the first spelled as its UTF-8 bytes.
 */
import http from 'node:http';
import type net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exchange } from '../../test/helpers/raw-http.js';
import { fixedWholesKept, prepareHead, sendPrepared } from './prepared-head.js';

const BODIES = { utf8: '{"hello":"wörld"}', ascii: '{"hello":"world!"}' };
let BODY = BODIES.utf8;
const headersOf = (body: string) => ({
  'content-type': 'application/json',
  'content-length': Buffer.byteLength(body),
  'access-control-allow-origin': '*',
  'x-many': ['one', 'two'],
});
let HEADERS = headersOf(BODY);

let server: http.Server | null = null;
afterEach(async () => {
  const s = server;
  server = null;
  if (s) await new Promise((resolve) => s.close(resolve));
});

/**
 * A server answering `/node` through writeHead and `/prepared` through sendPrepared (writeHead when
 * it declines); `used` lists, per prepared request, whether the prepared head went out.
 */
async function start(options: http.ServerOptions & { keepAliveTimeout?: number; maxRequestsPerSocket?: number } = {}) {
  const used: boolean[] = [];
  const s = http.createServer(options, (req, res) => {
    const status = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('status') ?? 200);
    if (req.url?.includes('set-header')) res.setHeader('x-set', 'early');
    if (req.url?.startsWith('/prepared')) {
      const head = prepareHead(status, HEADERS, Buffer.byteLength(BODY))?.whole;
      const fixed = req.url.includes('fixed');
      const sent =
        head !== undefined &&
        head !== null &&
        sendPrepared(res, status, head, BODY, HEADERS['content-length'], HEADERS, fixed);
      used.push(sent);
      // `?drop`: the connection is to end after the answer, decided once the prepared one is queued
      if (sent && req.url.includes('drop')) res.shouldKeepAlive = false;
      if (sent) return;
    }
    if (req.url?.includes('drop')) res.shouldKeepAlive = false;
    res.writeHead(status, HEADERS);
    res.end(BODY);
  });
  if (options.keepAliveTimeout !== undefined) s.keepAliveTimeout = options.keepAliveTimeout;
  if (options.maxRequestsPerSocket !== undefined) s.maxRequestsPerSocket = options.maxRequestsPerSocket;
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  server = s;
  return { port: (s.address() as net.AddressInfo).port, used };
}

/** The same request(s) through both doors: the bytes of each, and whether the server closed. */
async function both(port: number, request: (path: string) => string, options: Parameters<typeof exchange>[2] = {}) {
  const node = await exchange(port, request('/node'), options);
  const prepared = await exchange(port, request('/prepared'), options);
  return { node, prepared };
}

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: t\r\n${extra}\r\n`;

describe.each(Object.entries(BODIES))('sendPrepared, a body of %s', (_kind, body) => {
  beforeEach(() => {
    BODY = body;
    HEADERS = headersOf(body);
  });

  it('sends the bytes node sends for a keep-alive answer, with its Keep-Alive line', async () => {
    const { port, used } = await start();
    const { node, prepared } = await both(port, (p) => get(p));
    expect(used).toEqual([true]);
    expect(prepared).toEqual(node);
    expect(node.closed).toBe(false);
    expect(node.text).toContain('Connection: keep-alive\r\nKeep-Alive: timeout=5\r\n');
    expect(node.text).toContain('x-many: one\r\nx-many: two\r\n');
    expect(node.text.endsWith(`\r\n\r\n${Buffer.from(BODY).toString('latin1')}`)).toBe(true);
  });

  it('writes the answer as one chunk (no writev)', async () => {
    const { port } = await start();
    const writes: string[] = [];
    server?.prependListener('request', (_req, res: http.ServerResponse) => {
      const sock = res.socket as net.Socket & { _write: unknown; _writev: unknown };
      const write = sock._write as (...a: unknown[]) => unknown;
      const writev = sock._writev as (...a: unknown[]) => unknown;
      sock._write = (...a: unknown[]) => {
        writes.push('write');
        return write.apply(sock, a);
      };
      sock._writev = (...a: unknown[]) => {
        writes.push('writev');
        return writev.apply(sock, a);
      };
    });
    await exchange(port, get('/prepared'));
    expect(writes).toEqual(['write']);
  });

  it('sends a fixed answer (its whole kept for the second) as node does, again and again', async () => {
    const { port, used } = await start();
    const node = await exchange(port, get('/node') + get('/node') + get('/node'), { answers: 3 });
    const fixed = await exchange(port, get('/prepared?fixed') + get('/prepared?fixed') + get('/prepared?fixed'), {
      answers: 3,
    });
    expect(used).toEqual([true, true, true]);
    expect(fixed).toEqual(node);
    const other = body === BODIES.ascii ? BODIES.utf8 : BODIES.ascii;
    // the same head with another body of the same length: each answer has its own
    BODY = other;
    const again = await exchange(port, get('/prepared?fixed'));
    expect(again.text.endsWith(`\r\n\r\n${Buffer.from(other).toString('latin1')}`)).toBe(true);
  });

  it('keeps a fixed whole answer only until the Date line turns', async () => {
    const { port } = await start();
    await exchange(port, get('/prepared?fixed'));
    expect(fixedWholesKept()).toBeGreaterThan(0);
    const until = Date.now() + 3000;
    while (fixedWholesKept() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(fixedWholesKept()).toBe(0);
  });

  it('leaves a body past 64 Ki characters to end(body), byte for byte as node sends it', async () => {
    const { port, used } = await start();
    const writes: string[] = [];
    server?.prependListener('request', (_req, res: http.ServerResponse) => {
      const sock = res.socket as net.Socket & { _writev: unknown };
      const writev = sock._writev as (...a: unknown[]) => unknown;
      sock._writev = (...a: unknown[]) => {
        writes.push('writev');
        return writev.apply(sock, a);
      };
    });
    BODY = body.repeat(4000);
    HEADERS = headersOf(BODY);
    const { node, prepared } = await both(port, (p) => get(p));
    expect(used).toEqual([true]);
    expect(prepared).toEqual(node);
    expect(writes).toEqual(['writev', 'writev']);
  });

  it('sends a head without a body for HEAD, as node does', async () => {
    const { port, used } = await start();
    const { node, prepared } = await both(port, (p) => `HEAD ${p} HTTP/1.1\r\nHost: t\r\n\r\n`, { head: true });
    const fixed = await exchange(port, 'HEAD /prepared?fixed HTTP/1.1\r\nHost: t\r\n\r\n', { head: true });
    expect(used).toEqual([true, true]);
    expect(prepared).toEqual(node);
    expect(fixed).toEqual(node);
    expect(node.text).toMatch(/content-length: 18\r\n[\s\S]*\r\n\r\n$/);
    expect(prepared.text).not.toContain('hello');
  });

  it('answers pipelined requests in order, each as node does', async () => {
    const { port, used } = await start();
    const { node, prepared } = await both(port, (p) => get(`${p}?status=201`) + get(`${p}?status=404`) + get(p), {
      answers: 3,
    });
    expect(used).toEqual([true, true, true]);
    expect(prepared).toEqual(node);
    expect(node.text.match(/HTTP\/1\.1 \d+ [^\r]*/g)).toEqual([
      'HTTP/1.1 201 Created',
      'HTTP/1.1 404 Not Found',
      'HTTP/1.1 200 OK',
    ]);
  });

  it("follows the server's keep-alive settings: no timeout, and a request limit", async () => {
    const off = await start({ keepAliveTimeout: 0 });
    const a = await both(off.port, (p) => get(p));
    expect(off.used).toEqual([true]);
    expect(a.prepared).toEqual(a.node);
    expect(a.node.text).not.toContain('Keep-Alive:');
    await new Promise((resolve) => server?.close(resolve));
    server = null;

    const limited = await start({ maxRequestsPerSocket: 2 });
    const b = await both(limited.port, (p) => get(p) + get(p), { answers: 2 });
    // the second answer on the socket reaches the limit: node says it closes, and so does the fallback
    expect(limited.used).toEqual([true, false]);
    expect(b.prepared).toEqual(b.node);
    expect(b.node.text).toContain('Keep-Alive: timeout=5, max=2\r\n');
    expect(b.node.text).toContain('Connection: close\r\n');
  });

  it('leaves to node the answers that end the connection or wait for a continue', async () => {
    const { port, used } = await start();
    const cases: [(p: string) => string, { close?: boolean }][] = [
      [(p) => get(p, 'Connection: close\r\n'), { close: true }],
      [(p) => `GET ${p} HTTP/1.0\r\nHost: t\r\n\r\n`, { close: true }],
      [(p) => `POST ${p} HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n`, {}],
      [(p) => get(`${p}?set-header`), {}],
    ];
    for (const [request, options] of cases) {
      const { node, prepared } = await both(port, request, options);
      expect(prepared).toEqual(node);
    }
    expect(used).toEqual([false, false, false, false]);
  });

  it('writes through writeHead when the response leaves the plain case before the end of the turn', async () => {
    const { port, used } = await start();
    const { node, prepared } = await both(port, (p) => get(`${p}?drop`), { close: true });
    expect(used).toEqual([true]);
    expect(prepared).toEqual(node);
    expect(node.text).toContain('Connection: close\r\n');
    expect(node.closed).toBe(true);
  });

  it('sends nothing when the head is already out', async () => {
    const { port } = await start();
    const seen: boolean[] = [];
    server?.removeAllListeners('request');
    server?.on('request', (_req, res: http.ServerResponse) => {
      res.writeHead(200, { 'content-length': 2 });
      seen.push(sendPrepared(res, 200, 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n', 'no', 2, { 'content-length': 2 }));
      res.end('ok');
    });
    const { text } = await exchange(port, get('/'));
    expect(seen).toEqual([false]);
    expect(text.endsWith('\r\n\r\nok')).toBe(true);
  });
});

describe('prepareHead', () => {
  it('spells the status line and headers around the length', () => {
    const head = prepareHead(201, { 'content-type': 'text/plain', 'Content-Length': 0, 'x-a': 'b' }, null);
    expect(head).toEqual({
      before: 'HTTP/1.1 201 Created\r\ncontent-type: text/plain\r\nContent-Length: ',
      after: '\r\nx-a: b\r\n',
      whole: null,
    });
    expect(prepareHead(299, { 'content-length': 1 }, 1)?.whole).toBe('HTTP/1.1 299 unknown\r\ncontent-length: 1\r\n');
  });

  it('leaves to node what it writes its own way or refuses', () => {
    const cl = { 'content-length': 1 };
    for (const status of [100, 103, 204, 304, 1000, 99]) expect(prepareHead(status, cl, 1)).toBeNull();
    for (const name of [
      'Connection',
      'keep-alive',
      'Transfer-Encoding',
      'date',
      'Expect',
      'trailer',
      'content-disposition',
    ])
      expect(prepareHead(200, { ...cl, [name]: 'x' }, 1)).toBeNull();
    expect(prepareHead(200, { ...cl, 'bad name': 'x' }, 1)).toBeNull();
    expect(prepareHead(200, { ...cl, 'x-a': 'line\nbreak' }, 1)).toBeNull();
    expect(prepareHead(200, { 'x-a': 'b' }, 1)).toBeNull();
    expect(prepareHead(200, { ...cl, 'Content-Length': 1 }, 1)).toBeNull();
  });
});
