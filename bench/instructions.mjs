// Instructions per mock request under callgrind: a count that repeats to about 1 % from run to run
// (CPU time on the shared dev VM moves 5-20 % between periods), for comparing two builds of the hot
// path. Each build is started under `valgrind --tool=callgrind` with instrumentation off, set up over
// the API, warmed up (so the JIT has settled), and then counted over N requests from 8 keep-alive
// connections (user-space instructions of the whole process; the kernel's share is not counted).
// At valgrind's speed (a few hundred requests a second) the request log writes every entry, as it
// does at moderate load, where under a flood it writes few (src/runtime/request-log.ts): the count
// includes that write.
//   npm run build && node bench/instructions.mjs S1 . /path/to/other/checkout
//   SCENARIO: S1 (fixed answer), S2 (two rules with conditions), S3 (templated answer), S4 (counted sequence),
//   S5 (a store_variable action: a new query value a request, as in the bench), S8 (a create into a
//   collection, over the bench's 50 mock sessions; `BARE_S8_SQLITE=1` has node-http keep its creates
//   durably in SQLite, a fresh file in the run's temp dir, as the bench's yardstick does — the kernel's
//   share of those writes, most of their cost, is not counted)
//   a checkout named `node-http` is bench/node-http-server.mjs, the bare reference server (no setup)
//   WARM (8000) and N (8000) requests over CONNS (8) connections; needs valgrind (`apt-get install -y valgrind`)
//   Closer to the bench's flood: CONNS=50 MOCKYARD_REQUEST_LOG_KEEP=100 WARM=20000 (the log's ring
//   overflows between writes, so few entries are written, and the JIT has settled in both servers);
//   MOCKYARD_REQUEST_LOG_FLUSH_MS=600000 instead leaves the log's writes out of the count altogether;
//   a ring of 100 also shortens how long an entry's text lives (fewer scavenges see it), so read a change
//   to what the log keeps with the default ring (1000) and FLUSH_MS=600000 (bench/README.md)
//   KEEP=1 keeps callgrind's output (its directory is printed); MOCKYARD_NODE_FLAGS adds node flags to
//   each checkout's process (not node-http's): `--perf-basic-prof` writes /tmp/perf-<pid>.map, which names
//   the JIT code that `callgrind_annotate` shows as bare addresses
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { SCENARIOS } from './lib/scenarios.mjs';
import { WORK } from './lib/settings.mjs';
import { npmStart } from './lib/standalone.mjs';

const [scenario = 'S1', ...dirs] = process.argv.slice(2);
const WARM = Number(process.env.WARM ?? 8000);
const N = Number(process.env.N ?? 8000);
const CONNS = Number(process.env.CONNS ?? 8);
const NODE_HTTP = 'node-http';
// the harness's own definitions (bench/lib/scenarios.mjs)
const SUPPORTED = ['S1', 'S2', 'S3', 'S4', 'S5', 'S8'];
const sc = SUPPORTED.includes(scenario) ? SCENARIOS[scenario] : undefined;
if (!sc || dirs.length === 0) {
  console.error(`usage: node bench/instructions.mjs ${SUPPORTED.join('|')} <checkout> [<checkout> …]`);
  process.exit(2);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-instructions-'));
// valgrind names the pipe callgrind_control talks through after these two variables
const vgEnv = { ...process.env, USER: process.env.USER ?? 'root', HOST: '127.0.0.1' };

async function measure(dir, port) {
  const bare = dir === NODE_HTTP;
  const out = path.join(tmp, `callgrind-${port}.out`);
  // a checkout runs with the node flags and environment of its `npm start`, as in `npm run bench`;
  // bare node:http with node's defaults, as there
  const start = bare ? { env: {}, flags: [] } : npmStart(dir);
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all-non-file',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}`,
      process.execPath,
      ...start.flags,
      ...(bare ? [] : (process.env.MOCKYARD_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean)),
      ...(bare
        ? [path.join(import.meta.dirname, 'node-http-server.mjs'), String(port)]
        : [path.join(dir, 'dist', 'main.js')]),
    ],
    {
      cwd: bare ? import.meta.dirname : dir,
      env: {
        ...vgEnv,
        ...start.env,
        PORT: String(port),
        DATABASE_URL: `sqlite:${path.join(tmp, `${port}.db`)}`,
        LOG_LEVEL: 'warn',
        ...(bare && process.env.BARE_S8_SQLITE ? { BARE_S8_SQLITE: path.join(tmp, `bare-${port}.db`) } : {}),
      },
      stdio: 'ignore',
    },
  );
  try {
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      // node-http answers /healthz with 404: any answer means it listens
      const r = await fetch(`${base}/healthz`).catch(() => null);
      if (r && (r.ok || bare)) break;
      if (i > 600) throw new Error(`${dir}: not healthy after 120 s`);
      await sleep(200);
    }
    const api = async (method, p, body, token) => {
      const r = await fetch(`${base}${p}`, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${await r.text()}`);
      return r.json();
    };
    // the mock's path prefix: node-http answers the scenario's path as it is
    let prefix = '';
    if (!bare) {
      const { token } = await api('POST', '/api/auth/register', {
        email: `i${port}@example.com`,
        password: 'bench-password-1',
      });
      const project = await api('POST', '/api/projects', { name: 'instructions' }, token);
      if (sc.def.collection) await api('POST', `/api/projects/${project.id}/collections`, sc.def.collection, token);
      const eps = `/api/projects/${project.id}/endpoints`;
      const ep = await api('POST', eps, sc.def.endpoint, token);
      for (const rule of sc.def.rules) await api('POST', `${eps}/${ep.id}/rules`, rule, token);
      prefix = `/m/${project.id}`;
    }
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNS });
    let sent = 0;
    const burst = async (n) => {
      let left = n;
      const one = () =>
        new Promise((resolve, reject) => {
          // S5 sends a new query value each request (its setupRequest), as the bench's load does
          const { path: p } = sc.setupRequest ? sc.setupRequest({ path: sc.path }) : sc;
          // S8 spreads its creates over the bench's mock sessions
          const session = sc.sessions ? { 'x-mockyard-session': `s${sent++ % sc.sessions}` } : {};
          const req = http.request(
            {
              agent,
              host: '127.0.0.1',
              port,
              method: sc.method ?? 'GET',
              path: `${prefix}${p}`,
              headers: { ...sc.headers, ...session },
            },
            (res) => {
              if (res.statusCode !== (sc.method === 'POST' ? 201 : 200)) reject(new Error(`answer ${res.statusCode}`));
              res.resume();
              res.on('end', resolve);
            },
          );
          req.on('error', reject);
          req.end(sc.body);
        });
      await Promise.all(
        Array.from({ length: CONNS }, async () => {
          while (left-- > 0) await one();
        }),
      );
    };
    await burst(WARM);
    const control = (...args) =>
      execFileSync('callgrind_control', [...args, String(child.pid)], { env: vgEnv, stdio: 'ignore' });
    control('-i', 'on');
    await burst(N);
    control('-i', 'off');
    control('-d');
    agent.destroy();
    await sleep(500);
    let total = 0;
    for (const f of fs.readdirSync(tmp).filter((x) => x.startsWith(path.basename(out)))) {
      const m = /^totals: (\d+)/m.exec(fs.readFileSync(path.join(tmp, f), 'utf8'));
      if (m) total = Math.max(total, Number(m[1]));
    }
    return total / N;
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)));
    // killed, valgrind leaves the pipes callgrind_control talked through
    const dir = os.tmpdir();
    for (const f of fs.readdirSync(dir))
      if (f.startsWith('vgdb-pipe-') && f.includes(`-${child.pid}-by-`)) fs.rmSync(path.join(dir, f), { force: true });
  }
}

const results = [];
for (const [i, dir] of dirs.entries()) {
  const perRequest = await measure(dir === NODE_HTTP ? dir : path.resolve(dir), 18300 + i);
  results.push(perRequest);
  console.log(`${scenario} ${dir}: ${Math.round(perRequest)} instructions a request (${N} requests after ${WARM})`);
}
if (results.length > 1) console.log(`ratio to the first: ${results.map((r) => (r / results[0]).toFixed(4)).join(' ')}`);
if (process.env.KEEP) console.log(`callgrind output kept in ${tmp}`);
else fs.rmSync(tmp, { recursive: true, force: true });
// the bench's own work directory, which its settings make on import (this run writes nothing there)
fs.rmSync(WORK, { recursive: true, force: true });
