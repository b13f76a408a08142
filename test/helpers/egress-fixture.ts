/**
 * The egress tests' fixture (src/runtime/egress*.test.ts): only 127.0.0.0/8 and ::1 are ever
 * contacted — public-looking names go through an injected lookup, and a guard on
 * net.connect/tls.connect fails any dial outside loopback. Canary servers count TCP connections (the
 * net 'connection' event, not HTTP requests). Importing it registers the file's hooks: the receivers
 * start before the file's tests and stop after them.
 */
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import {
  createEgress,
  EgressError,
  type EgressErrorKind,
  type EgressOptions,
  type EgressRequest,
} from '../../src/runtime/egress.js';

// ---------- loopback-only guard on outgoing sockets ----------

export const dialed: string[] = [];
export const realNetConnect = net.connect;
export const realTlsConnect = tls.connect;
export const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1)$/;

export function guardHost(host: unknown): void {
  const h = String(host);
  dialed.push(h);
  if (!LOOPBACK.test(h)) throw new Error(`test guard: refusing to dial ${h}`);
}

// ---------- servers ----------

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Canary {
  server: http.Server;
  port: number;
  connections: number;
}

export async function listen(server: http.Server | net.Server, host: string, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as net.AddressInfo).port;
}

export async function startCanary(host: string): Promise<Canary | undefined> {
  const server = http.createServer((_req, res) => res.end('canary'));
  const canary: Canary = { server, port: 0, connections: 0 };
  server.on('connection', () => {
    canary.connections++;
  });
  try {
    canary.port = await listen(server, host);
  } catch {
    return undefined; // e.g. no IPv6 on this machine
  }
  return canary;
}

export async function stop(server: http.Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections?.();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export const timers = new Set<NodeJS.Timeout>();
export function later(ms: number, fn: () => void): void {
  const t = setTimeout(() => {
    timers.delete(t);
    fn();
  }, ms);
  timers.add(t);
}

export const FIVE_MIB = 5 * 1024 * 1024;
export const bigStream = { written: 0, finished: false, closedEarly: false };

/** The receiver: an allowed target that records what it gets and can misbehave on demand. */
export function receiverHandler(log: Recorded[]) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      log.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const to = url.searchParams.get('to');
      switch (url.pathname) {
        case '/echo':
          res.writeHead(201, { 'content-type': 'application/json', 'x-reply': 'yes' });
          res.end(JSON.stringify({ ok: true }));
          return;
        case '/redirect':
          res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to ?? '/echo' });
          res.end('moved');
          return;
        case '/slow':
          later(3000, () => res.end('late'));
          return;
        case '/stall-body':
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('partial');
          later(3000, () => res.end('rest'));
          return;
        case '/sized': {
          const n = Number(url.searchParams.get('n'));
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('a'.repeat(n));
          return;
        }
        case '/big-declared':
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(FIVE_MIB) });
          res.end(Buffer.alloc(FIVE_MIB, 'b'));
          return;
        case '/big': {
          // 5 MiB, chunked, written with back-pressure so an early client abort is observable.
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          const chunk = Buffer.alloc(64 * 1024, 'c');
          bigStream.written = 0;
          bigStream.finished = false;
          bigStream.closedEarly = false;
          res.on('close', () => {
            if (!bigStream.finished) bigStream.closedEarly = true;
          });
          const pump = () => {
            while (bigStream.written < FIVE_MIB) {
              if (res.destroyed) return;
              bigStream.written += chunk.length;
              if (!res.write(chunk)) {
                res.once('drain', pump);
                return;
              }
            }
            bigStream.finished = true;
            res.end();
          };
          pump();
          return;
        }
        default: {
          const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
          if (chain) {
            const n = Number(chain[1]);
            if (n === 0) res.end('end of chain');
            else {
              res.writeHead(302, { location: `/chain/${n - 1}` });
              res.end();
            }
            return;
          }
          res.writeHead(404);
          res.end();
        }
      }
    });
  };
}

export let canary4: Canary;
export let canary6: Canary | undefined;
export let receiver: http.Server;
export let receiverPort: number;
export const received: Recorded[] = [];
export let other: http.Server;
export let otherPort: number;
export const receivedOther: Recorded[] = [];
export let closedPort: number;

export const lookups: string[] = [];
/** Fake DNS: names ending in .test map to fixed answers; anything else fails. No real DNS is used. */
export const zone: Record<string, string[]> = {};
export const fakeLookup: NonNullable<EgressOptions['lookup']> = async (hostname) => {
  lookups.push(hostname);
  const answers = zone[hostname];
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answers.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
};

beforeAll(async () => {
  net.connect = ((...args: unknown[]) => {
    const first = args[0];
    guardHost(
      typeof first === 'object' && first !== null ? ((first as net.TcpNetConnectOpts).host ?? 'localhost') : args[1],
    );
    return (realNetConnect as (...a: unknown[]) => net.Socket).apply(net, args);
  }) as typeof net.connect;
  tls.connect = ((...args: unknown[]) => {
    const first = args[0];
    guardHost(typeof first === 'object' && first !== null ? (first as tls.ConnectionOptions).host : args[1]);
    return (realTlsConnect as (...a: unknown[]) => tls.TLSSocket).apply(tls, args);
  }) as typeof tls.connect;

  const c4 = await startCanary('127.0.0.1');
  if (!c4) throw new Error('cannot listen on 127.0.0.1');
  canary4 = c4;
  canary6 = await startCanary('::1');

  receiver = http.createServer(receiverHandler(received));
  receiverPort = await listen(receiver, '127.0.0.1');
  other = http.createServer(receiverHandler(receivedOther));
  otherPort = await listen(other, '127.0.0.1');

  const probe = net.createServer();
  closedPort = await listen(probe as unknown as http.Server, '127.0.0.1');
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  for (const t of timers) clearTimeout(t);
  await Promise.all([stop(canary4?.server), stop(canary6?.server), stop(receiver), stop(other)]);
  net.connect = realNetConnect;
  tls.connect = realTlsConnect;
});

export const egresses: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(egresses.splice(0).map((e) => e.close()));
});

export function make(opts: Partial<EgressOptions> = {}) {
  const e = createEgress({
    allowTargets: [`127.0.0.1:${receiverPort}`, `127.0.0.1:${otherPort}`, `127.0.0.1:${closedPort}`],
    lookup: fakeLookup,
    ...opts,
  });
  egresses.push(e);
  return e;
}

export function req(url: string, extra: Partial<EgressRequest> = {}): EgressRequest {
  return { url, method: 'GET', headers: {}, timeoutMs: 2000, ...extra };
}

export async function failure(p: Promise<unknown>): Promise<EgressError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(EgressError);
    return err as EgressError;
  }
  throw new Error('expected the request to fail');
}

export async function expectFailure(p: Promise<unknown>, kind: EgressErrorKind, message?: string): Promise<void> {
  const err = await failure(p);
  expect(err.kind).toBe(kind);
  if (message !== undefined) expect(err.message).toBe(message);
}

export function totalCanaryConnections(): number {
  return canary4.connections + (canary6?.connections ?? 0);
}

// ---------- blocked targets ----------
