/**
 * A local HTTP receiver for the action tests (test/actions): records what it is sent and answers as
 * the test scripts it; `canaryPort` names the canary a redirect may point at (the server must never
 * reach it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local HTTP server that records what it receives and answers by path. */
export async function startReceiver(canaryPort: number) {
  const seen: Seen[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const u = new URL(req.url ?? '/', 'http://receiver');
      if (u.pathname.startsWith('/slow')) {
        const t = setTimeout(() => res.end('late'), Number(u.searchParams.get('ms')));
        res.on('close', () => clearTimeout(t));
      } else if (u.pathname === '/json') {
        res.writeHead(203, { 'content-type': 'application/json', 'x-h': 'hv' });
        res.end('{"a":{"b":"deep"},"n":[1,2]}');
      } else if (u.pathname === '/fail') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('boom');
      } else if (u.pathname === '/answer') {
        res.writeHead(207, { 'content-type': 'text/csv' });
        res.end('a,b');
      } else if (u.pathname === '/redirect-to-canary') {
        res.writeHead(302, { location: `http://127.0.0.1:${canaryPort}/from-redirect` });
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      }
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    connections: () => connections,
    /** requests whose URL contains `tag` */
    seenFor: (tag: string) => seen.filter((s) => s.url.includes(tag)),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
