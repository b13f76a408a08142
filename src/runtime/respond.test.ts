/**
 * `writeAnswer` with only our own headers (a collection's, GraphQL's or an applied webhook's answer)
 * takes a prepared head kept by status, first header and content type: each answer is compared
 * byte for byte with node's own `writeHead` for the same headers, the Date line aside, over a real
 * server and a raw socket.
 */
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange } from '../../test/helpers/raw-http.js';
import { type AnswerNote, CORS, CSP, MOCK_CSP, type OutHeaders, writeAnswer } from './respond.js';

const BODY = '{"id":"a-1","name":"wörld"}';

/** The headers an answer of `?type=…&cors-first` carries (no content type for `type=`). */
function headersOf(url: URL): OutHeaders {
  const type = url.searchParams.get('type') ?? 'application/json';
  const h: OutHeaders = {};
  if (url.searchParams.has('cors-first')) h[CORS] = '*';
  if (type !== '') h['content-type'] = type;
  h['content-length'] = Buffer.byteLength(BODY);
  h[CORS] = '*';
  h[CSP] = MOCK_CSP;
  return h;
}

const note = (): AnswerNote => ({ sentHeaders: null, sentBody: '', sentShared: false, sentStep: null, sentDelay: 0 });

let server: http.Server;
let port = 0;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const status = Number(url.searchParams.get('status'));
    if (url.pathname === '/own') writeAnswer(res, status, headersOf(url), BODY, note());
    else {
      res.writeHead(status, headersOf(url));
      res.end(BODY);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: t\r\n\r\n`;

/** The answer through writeAnswer and through node's writeHead, for the same query. */
async function both(query: string) {
  const own = await exchange(port, get(`/own?${query}`));
  const node = await exchange(port, get(`/node?${query}`));
  return { own: own.text, node: node.text };
}

describe('writeAnswer with our own headers', () => {
  it('sends what node sends for each status, content type and first header, in any order asked', async () => {
    const queries: string[] = [];
    for (const status of [200, 201, 404])
      for (const type of ['application/json', 'text/plain', ''])
        for (const first of ['', '&cors-first'])
          queries.push(`status=${status}&type=${encodeURIComponent(type)}${first}`);
    // each twice, the second round in reverse: an answer that took another's head would differ
    for (const q of [...queries, ...queries.reverse()]) {
      const { own, node } = await both(q);
      expect(own, q).toBe(node);
      expect(own, q).toMatch(/^HTTP\/1\.1 \d{3} /);
    }
  });

  it('sends the right head once more heads were asked for than it keeps', async () => {
    // 298 statuses (204 and 304 carry no body): past the 256 heads kept, those are dropped and spelled again
    for (let status = 200; status < 500; status++) {
      if (status === 204 || status === 304) continue;
      const own = await exchange(port, get(`/own?status=${status}`));
      expect(own.text.startsWith(`HTTP/1.1 ${status} `), String(status)).toBe(true);
    }
    for (const status of [201, 499, 200]) {
      const { own, node } = await both(`status=${status}`);
      expect(own).toBe(node);
    }
  });
});
