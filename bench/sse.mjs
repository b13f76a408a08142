// SSE bench (`npm run bench:sse`, docs/streams.md "Scale"): OPEN kept-open streams (one event, then
// heartbeats) on one Mockyard process and on a bare node:http SSE server in the same run — RSS with
// them open, S1 (a fixed answer) answered alongside them (autocannon, p99), and the time to the first
// event of new streams opened at RATE a second for 3 s (p99). Environment: OPEN=10000 RATE=1000.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { api, npmStart, rssMB, waitFor } from './lib/standalone.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OPEN = Number(process.env.OPEN ?? 10_000);
const RATE = Number(process.env.RATE ?? 1000);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

/** Opens one stream; resolves with it and the ms to its first event. */
function openStream(url) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get(url, { agent }, (res) => {
      res.once('data', () => resolve({ req, ms: performance.now() - t0 }));
      res.on('error', () => {});
    });
    req.on('error', reject);
  });
}

const p99 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))];
};

async function measure(name, pid, feedUrl, pingUrl) {
  const before = rssMB(pid);
  const open = [];
  for (let i = 0; i < OPEN; i += 500) {
    open.push(...(await Promise.all(Array.from({ length: Math.min(500, OPEN - i) }, () => openStream(feedUrl)))));
  }
  await sleep(2000);
  const rss = rssMB(pid);
  const load = await autocannon({ url: pingUrl, connections: 20, duration: 5 });
  // new streams at RATE a second, for 3 s, while the others stay open
  const firsts = [];
  const extra = [];
  const started = performance.now();
  while (performance.now() - started < 3000) {
    const batch = Math.max(1, Math.round(RATE / 100));
    for (let k = 0; k < batch; k++)
      extra.push(
        openStream(feedUrl).then((s) => {
          firsts.push(s.ms);
          s.req.destroy();
        }),
      );
    await sleep(10);
  }
  await Promise.all(extra);
  for (const s of open) s.req.destroy();
  await sleep(500);
  console.log(
    `${name}: ${open.length} open streams, RSS ${Math.round(rss)} MB (${Math.round(before)} MB before); ` +
      `S1 alongside ${Math.round(load.requests.average)} req/s, p99 ${load.latency.p99} ms; ` +
      `first event p99 ${p99(firsts).toFixed(1)} ms over ${firsts.length} new streams`,
  );
  return { rss, s1p99: load.latency.p99, ttfe: p99(firsts) };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-sse-bench-'));
const children = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
try {
  const bare = spawn(process.execPath, [path.join(ROOT, 'bench/sse-server.mjs')], {
    env: { ...process.env, PORT: '18480' },
  });
  children.push(bare);
  await new Promise((r) => bare.stdout.once('data', r));
  const port = 18490;
  const start = npmStart(ROOT);
  const my = spawn(process.execPath, [...start.flags, 'scripts/start.mjs'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...start.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${path.join(tmp, 'db.sqlite')}`,
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  children.push(my);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/healthz`);
  const { token } = await api(base, 'POST', '/api/auth/register', {
    email: `sse-${Date.now()}@bench.test`,
    password: 'bench-password-1',
  });
  const p = await api(base, 'POST', '/api/projects', { name: 'sse bench' }, token);
  const feed = await api(base, 'POST', `/api/projects/${p.id}/endpoints`, { method: 'GET', path: '/feed' }, token);
  await api(
    base,
    'POST',
    `/api/projects/${p.id}/endpoints/${feed.id}/rules`,
    { name: 'feed', response: { steps: [{ statusCode: 200, events: [{ data: 'hello' }], keepOpen: true }] } },
    token,
  );
  await api(
    base,
    'POST',
    `/api/projects/${p.id}/endpoints`,
    { method: 'GET', path: '/ping', responseBody: 'pong', contentType: 'text/plain' },
    token,
  );

  const b = await measure('node:http', bare.pid, 'http://127.0.0.1:18480/feed', 'http://127.0.0.1:18480/ping');
  const m = await measure('mockyard', my.pid, `${base}/m/${p.id}/feed`, `${base}/m/${p.id}/ping`);
  console.log(
    `goals: RSS ≤ 400 MB (${Math.round(m.rss)}; node:http ${Math.round(b.rss)}), S1 p99 ≤ 20 ms (${m.s1p99}), first event p99 ≤ 10 ms (${m.ttfe.toFixed(1)})`,
  );
} finally {
  for (const c of children) c.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
}
