// Bare node:http reference server for bench/run.mjs: for each scenario it answers the same status, content
// type and body bytes as the Mockyard endpoint the harness sets up, with the least JS that is equivalent
// (S2 evaluates the two conditions, S3 renders a fresh uuid, S4 keeps an in-memory counter, S5 keeps the
// last stored value in memory, S7 stringifies a 100-item array, S8 parses the body, adds a uuid and keeps it).
// Its headers are those of every Mockyard mock answer (SECURITY.md): `Access-Control-Allow-Origin: *` and the
// sandboxing `Content-Security-Policy`, so both servers send the same bytes
// (S1's check asserts both headers; bench/RESULTS.md's bytes/resp column shows the sizes).
// A leading `/m/<projectId>` is accepted and ignored, so the harness can send the same paths to both.
// Usage: node bench/node-http-server.mjs <port> [host]
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { eachBody, GQL_ANSWER, ITEMS, SEQ_BODIES, STORE_BODY, TIER_BODY, USERS_BODY } from './bodies.mjs';

const GQL = Buffer.from(GQL_ANSWER);

const port = Number(process.argv[2] || 18180);
const host = process.argv[3] || '127.0.0.1';

/** the sandbox every mock answer carries (src/runtime/respond.ts, SECURITY.md) */
const MOCK_CSP = 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads';
const USERS = Buffer.from(USERS_BODY);
const VIP = Buffer.from(TIER_BODY.vip);
const BETA = Buffer.from(TIER_BODY.beta);
const FREE = Buffer.from(TIER_BODY.free);
const SEQ = SEQ_BODIES.map((b) => Buffer.from(b));
const STORED = Buffer.from(STORE_BODY);
const NOT_FOUND = Buffer.from('{"error":{"code":"mock_not_found","message":"no such mock endpoint"}}');
const counters = { '/api/seq': 0, '/api/seq-pg': 0 };
const storage = { last: '' };
/** S7/S8: the collection in memory (a list is stringified per request, as Mockyard does) */
const items = ITEMS.map((x) => ({ ...x }));
// S8's items, the newest 10,000 (kept whole, this one server's heap grew past 300 MB over a full
// run and slowed every later scenario's baseline)
const created = [];
const KEEP_CREATED = 10_000;

// BARE_S8_SQLITE=<file>: S8's creates kept durably instead, the least a server does that makes them
// survive a crash as Mockyard's do: each turn's creates inserted into SQLite (WAL, synchronous =
// NORMAL, as src/store/index.ts opens it) in one transaction at the end of the turn, each answered once
// it is committed; keyed by mock session (X-Mockyard-Session) and id, the id time-ordered as Mockyard's
// (version 7: a session's new rows go to the end of its part of the key). A yardstick for what a
// durable create costs on bare node:http (bench/README.md), not one of the bench's own baselines.
const durable = process.env.BARE_S8_SQLITE ? await openDurable(process.env.BARE_S8_SQLITE) : null;

/** a version-7 uuid: the time in ms, then random bits */
function timeOrderedId() {
  const t = Date.now().toString(16).padStart(12, '0');
  return `${t.slice(0, 8)}-${t.slice(8)}-7${randomUUID().slice(15)}`;
}

async function openDurable(file) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -2000');
  db.exec(
    'CREATE TABLE IF NOT EXISTS items (session TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (session, id))',
  );
  const insert = db.prepare('INSERT INTO items (session, id, data) VALUES (?, ?, ?)');
  const commit = db.transaction((rows) => {
    for (const r of rows) insert.run(r.session, r.id, r.data);
  });
  let pending = [];
  return (session, id, data, answer) => {
    if (pending.length === 0)
      setImmediate(() => {
        const rows = pending;
        pending = [];
        commit(rows);
        for (const r of rows) r.answer();
      });
    pending.push({ session, id, data, answer });
  };
}

function send(res, status, body) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': body.length,
    'access-control-allow-origin': '*',
    'content-security-policy': MOCK_CSP,
  });
  res.end(body);
}

const server = http.createServer((req, res) => {
  let url = req.url;
  if (url.startsWith('/m/')) {
    const slash = url.indexOf('/', 3);
    url = slash === -1 ? '/' : url.slice(slash);
  }
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const query = () => new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
  if (req.method === 'POST' && path === '/api/items-new') {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const item = {
        ...JSON.parse(Buffer.concat(chunks).toString('utf8')),
        id: durable ? timeOrderedId() : randomUUID(),
      };
      if (durable) {
        const data = Buffer.from(JSON.stringify(item));
        durable(String(req.headers['x-mockyard-session'] ?? ''), item.id, data.toString(), () => send(res, 201, data));
        return;
      }
      created.push(item);
      if (created.length > 2 * KEEP_CREATED) created.splice(0, created.length - KEEP_CREATED);
      send(res, 201, Buffer.from(JSON.stringify(item)));
    });
    return;
  }
  if (req.method === 'POST' && path === '/graphql') {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      send(res, 200, GQL);
    });
    return;
  }
  if (req.method !== 'GET') return send(res, 404, NOT_FOUND);
  switch (path) {
    case '/api/users':
    case '/api/users-import':
      return send(res, 200, USERS);
    case '/api/tier':
      if (req.headers['x-tier'] === 'vip') return send(res, 200, VIP);
      return send(res, 200, query().has('beta') ? BETA : FREE);
    case '/api/each':
      return send(res, 200, Buffer.from(eachBody(query().get('name') ?? '')));
    case '/api/echo':
      return send(res, 200, Buffer.from(JSON.stringify({ hello: query().get('name') ?? '', id: randomUUID() })));
    case '/api/seq':
    case '/api/seq-pg': {
      const i = counters[path];
      counters[path] = (i + 1) % SEQ.length;
      return send(res, 200, SEQ[i]);
    }
    case '/api/items':
      return send(res, 200, Buffer.from(JSON.stringify(items)));
    case '/api/store':
      storage.last = query().get('v') ?? '';
      return send(res, 200, STORED);
    default:
      return send(res, 404, NOT_FOUND);
  }
});

server.keepAliveTimeout = 10_000;
server.listen(port, host, () => console.log(`node-http listening on http://${host}:${port}`));
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close(() => process.exit(0)));
