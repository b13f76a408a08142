// Mockyard benchmark harness (`npm run bench`). Measures Mockyard's mock traffic against a bare node:http
// server answering the same bytes, in the same run, one server at a time on 127.0.0.1, with the server
// pinned to CPU 1 (`taskset -c 1`) and this driver (autocannon, programmatic) pinned to CPU 0. Method
// copied from the shared peer harness (shared/bench): answers are checked for equivalence before any load,
// then a warm-up, then the measured period(s). See bench/README.md.
//
// Environment (all optional):
//   SCENARIOS=S1,S4        subset of S1 S2 S3 S4 S5 S6 S7 S8 S1-pg S4-pg (default: S1-S8, plus S1-pg and S4-pg when PG_URL is set)
//   CONNECTIONS=50 WARMUP=5 DURATION=10 RUNS=1   (RUNS>1: the median run by req/s is reported)
//   PIN=1                  0 = no CPU pinning; SERVER_CPUS=1 LOADGEN_CPUS=0 choose the CPUs
//   PG_URL | TEST_DATABASE_URL   a PostgreSQL URL: enables S1-pg and S4-pg (a fresh database is created and dropped)
//   WRITE_RESULTS=1        write bench/RESULTS.md (default 1 for a full run, 0 when SCENARIOS narrows it)
//   NODE_HTTP_PORT=18180 MOCKYARD_PORT=18190 (S4-pg uses MOCKYARD_PORT and MOCKYARD_PORT+1)
//   MOCKYARD_DIR=<this checkout> MOCKYARD_REF=<git ref: benchmark a built snapshot of it> MOCKYARD_START_TIMEOUT_S=300 S6_PROJECTS=1000 S6_ENDPOINTS=10000 SETUP_CONCURRENCY=20 EXACT_N=3000
//   QUIET_MAX_PCT=15 QUIET_TIMEOUT_S=120 MAX_TOTAL_S=3600 KEEP_TMP=0
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bigDescription } from './big-description.mjs';
import { ECHO_TEMPLATE, ITEMS, NEW_ITEM_BODY, SEQ_BODIES, STORE_BODY, TIER_BODY, USERS_BODY } from './bodies.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const requireFromRoot = createRequire(path.join(ROOT, 'package.json'));
// The Mockyard checkout to start (default: this one). With MOCKYARD_REF, a snapshot of that git ref of this
// repository is extracted and built in the run's temp dir instead, so the work tree (and its dist/) is not
// touched: for benchmarking while the tree is being edited.
let MOCKYARD_DIR = path.resolve(process.env.MOCKYARD_DIR || ROOT);
const MOCKYARD_REF = process.env.MOCKYARD_REF || '';
const autocannon = requireFromRoot('autocannon');
const HOST = '127.0.0.1';

// ---------- settings ----------
const env = process.env;
function num(name, def, { min = 0, int = false } = {}) {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || (int && !Number.isInteger(n))) {
    console.error(`${name}=${raw}: expected ${int ? 'an integer' : 'a number'} >= ${min}`);
    process.exit(2);
  }
  return n;
}
const CONNECTIONS = num('CONNECTIONS', 50, { min: 2, int: true });
const WARMUP = num('WARMUP', 5);
const DURATION = num('DURATION', 10, { min: 1 });
const RUNS = num('RUNS', 1, { min: 1, int: true });
const NODE_HTTP_PORT = num('NODE_HTTP_PORT', 18180, { min: 1, int: true });
const MOCKYARD_PORT = num('MOCKYARD_PORT', 18190, { min: 1, int: true });
const START_TIMEOUT_S = num('MOCKYARD_START_TIMEOUT_S', 300, { min: 1 });
const S6_PROJECTS = num('S6_PROJECTS', 1000, { min: 2, int: true });
const S6_ENDPOINTS = num('S6_ENDPOINTS', 10000, { min: 1, int: true });
const SETUP_CONCURRENCY = num('SETUP_CONCURRENCY', 20, { min: 1, int: true });
const EXACT_N = Math.max(3, Math.round(num('EXACT_N', 3000, { min: 3, int: true }) / 6) * 6);
const QUIET_MAX_PCT = num('QUIET_MAX_PCT', 15);
const QUIET_TIMEOUT_S = num('QUIET_TIMEOUT_S', 120);
const MAX_TOTAL_S = num('MAX_TOTAL_S', 3600, { min: 10 });
const KEEP_TMP = env.KEEP_TMP === '1';
const PG_URL = env.PG_URL || env.TEST_DATABASE_URL || '';
const SERVER_CPUS = env.SERVER_CPUS || '1';
// Scheduling priority of the servers and the driver (nice value, -20..19; negative needs root): on a shared
// machine, NICE=-10 gives the benchmark precedence over other work on the same CPUs. Unset: unchanged.
const NICE = env.NICE ? num('NICE', 0, { min: -20, int: true }) : null;
const LOADGEN_CPUS = env.LOADGEN_CPUS || '0';

const ALL_IDS = ['S1', 'S2', 'S3', 'S4', 'S5', 'S6', 'S7', 'S8', 'S9', 'S1-pg', 'S4-pg', 'S5-pg', 'S8-pg'];
const isPg = (id) => id.endsWith('-pg');
const SCEN_FILTER = (env.SCENARIOS || '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
for (const id of SCEN_FILTER) {
  if (!ALL_IDS.includes(id)) {
    console.error(`SCENARIOS: unknown scenario ${id} (known: ${ALL_IDS.join(', ')})`);
    process.exit(2);
  }
}
const FULL_RUN = SCEN_FILTER.length === 0;
const SELECTED = FULL_RUN
  ? ALL_IDS.filter((id) => !isPg(id) || PG_URL)
  : ALL_IDS.filter((id) => SCEN_FILTER.includes(id));
const WRITE_RESULTS = (env.WRITE_RESULTS ?? (FULL_RUN ? '1' : '0')) === '1';

const STAMP = new Date().toISOString().replace(/[:.]/g, '-');
const WORK = fs.mkdtempSync(path.join(os.tmpdir(), `mockyard-bench-${STAMP}-`));
const LOG_DIR = path.join(WORK, 'logs');
fs.mkdirSync(LOG_DIR, { recursive: true });

const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round1 = (x) => Math.round(x * 10) / 10;
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

// ---------- CPU pinning ----------
function hasTaskset() {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const PIN = (env.PIN ?? '1') !== '0' && os.availableParallelism() >= 2 && hasTaskset();
function hasWrk() {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (e) {
    // wrk --version exits 1 after printing its version
    return e.status === 1;
  }
}
// The load generator: wrk (C, one thread, much lighter than autocannon, which saturates its own core
// near 30-45k req/s and so caps node-http) when installed, else autocannon. LOADGEN=autocannon forces it.
const LOADGEN = env.LOADGEN || (hasWrk() ? 'wrk' : 'autocannon');
// With autogroup scheduling (Linux default), CPU is shared between sessions first, so a nice value only
// counts inside its session: the session's autogroup gets the nice value too. Servers are started in new
// sessions (detached), so each one's autogroup is set after the spawn; their threads inherit the nice value.
function applyNice(pid) {
  if (NICE === null) return;
  try {
    os.setPriority(pid, NICE);
    if (fs.existsSync(`/proc/${pid}/autogroup`)) fs.writeFileSync(`/proc/${pid}/autogroup`, String(NICE));
  } catch (e) {
    log(`NICE=${NICE}: could not set the priority of pid ${pid}: ${e.message}`);
  }
}
applyNice(process.pid); // this (main) thread runs autocannon; threads created later inherit its priority
if (PIN) {
  // Pin this driver (autocannon runs in it) and every thread it has to LOADGEN_CPUS; servers get SERVER_CPUS.
  execFileSync('taskset', ['-a', '-p', '-c', LOADGEN_CPUS, String(process.pid)], { stdio: 'ignore' });
}

// ---------- processes: each started in its own process group, tracked by pid, stopped at the end ----------
const children = new Set();

function procTree(root) {
  const kids = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(d));
    } catch {
      // gone
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(kids.get(out[i]) || []));
  return out;
}
function procStat(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}
// child.tree: pid -> start time of every descendant seen, so a recycled pid is never signalled.
function snapshotTree(child) {
  if (!child.pid) return;
  for (const pid of procTree(child.pid)) {
    const f = procStat(pid);
    if (f && f[0] !== 'Z' && !child.tree.has(pid)) child.tree.set(pid, f[19]);
  }
}
function aliveInTree(child) {
  return [...child.tree]
    .filter(([pid, st]) => {
      const f = procStat(pid);
      return f && f[0] !== 'Z' && f[19] === st;
    })
    .map(([pid]) => pid);
}
function signalChild(child, sig) {
  snapshotTree(child);
  if (!child.exitInfo) {
    try {
      process.kill(-child.pid, sig); // its process group (spawned detached)
    } catch {
      // group gone
    }
  }
  for (const pid of aliveInTree(child).reverse()) {
    try {
      process.kill(pid, sig);
    } catch {
      // gone
    }
  }
}
function rssMB(pids) {
  let kb = 0;
  for (const root of pids) {
    for (const p of procTree(root)) {
      try {
        kb += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] || 0);
      } catch {
        // gone
      }
    }
  }
  return round1(kb / 1024);
}
function cpuTicks(pids) {
  let t = 0;
  for (const root of pids) {
    for (const p of procTree(root)) {
      const f = procStat(p);
      if (f) t += Number(f[11]) + Number(f[12]);
    }
  }
  return t;
}
function sysBusyTicks() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
}
async function otherCpuPct(ms, pids) {
  const b0 = sysBusyTicks();
  const e0 = cpuTicks(pids);
  const l0 = process.cpuUsage();
  await sleep(ms);
  const l = process.cpuUsage(l0);
  const other = sysBusyTicks() - b0 - (cpuTicks(pids) - e0) - ((l.user + l.system) / 1e6) * CLK_TCK;
  return Math.max(0, Math.round((other / CLK_TCK / (ms / 1000)) * 100));
}
// Waits (bounded) until other processes use < QUIET_MAX_PCT of one core; the machine has 2 cores.
async function waitQuiet(label, pids) {
  const t0 = Date.now();
  let pct = await otherCpuPct(1500, pids);
  while (pct > QUIET_MAX_PCT && Date.now() - t0 < QUIET_TIMEOUT_S * 1000) {
    log(`${label}: other processes busy (${pct}% of a core), waiting for a quiet machine...`);
    await sleep(5000);
    pct = await otherCpuPct(1500, pids);
  }
  if (pct > QUIET_MAX_PCT) log(`${label}: still busy (${pct}%) after ${QUIET_TIMEOUT_S}s, going ahead (flagged)`);
  return pct;
}

function startProc(name, cmd, args, { cwd = ROOT, extraEnv = {} } = {}) {
  let command = cmd;
  let argv = args;
  if (PIN) {
    argv = ['-c', SERVER_CPUS, cmd, ...args]; // taskset execs the command: same pid
    command = 'taskset';
  }

  const logFile = path.join(LOG_DIR, `${name}.log`);
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(command, argv, { cwd, env: { ...env, ...extraEnv }, stdio: ['ignore', fd, fd], detached: true });
  fs.closeSync(fd);
  child.benchName = name;
  child.logFile = logFile;
  child.exitInfo = null;
  child.tree = new Map();
  child.once('error', (e) => {
    child.exitInfo ??= { error: e.message };
  });
  child.once('exit', (code, sig) => {
    child.exitInfo = { code, sig };
  });
  if (child.pid) {
    children.add(child);
    applyNice(child.pid);
    snapshotTree(child);
  }
  log(`started ${name} pid=${child.pid}: ${command} ${argv.join(' ')}`);
  return child;
}
// Server processes stopped (SIGSTOP) while another server is under load: an idle node process on the
// server CPU was measured to cost the loaded one about 20 % of its req/s on the dev VM (see README).
const paused = new Set();
function pausePids(pids) {
  for (const p of pids) {
    try {
      process.kill(p, 'SIGSTOP');
      paused.add(p);
    } catch {}
  }
}
function resumePids(pids) {
  for (const p of pids) {
    try {
      process.kill(p, 'SIGCONT');
    } catch {}
    paused.delete(p);
  }
}
async function stopProc(child) {
  if (!child?.pid) return;
  resumePids([...paused]); // a stopped process would not act on SIGTERM
  const gone = () => child.exitInfo && aliveInTree(child).length === 0;
  if (!gone()) {
    signalChild(child, 'SIGTERM');
    for (let i = 0; i < 100 && !gone(); i++) await sleep(100);
  }
  if (!gone()) {
    signalChild(child, 'SIGKILL');
    for (let i = 0; i < 50 && !gone(); i++) await sleep(100);
  }
  if (gone()) children.delete(child);
  log(
    `stopped ${child.benchName} pid=${child.pid} ${JSON.stringify(child.exitInfo)}${gone() ? '' : ' WARNING: still running'}`,
  );
}
function killAllSync() {
  resumePids([...paused]);
  for (const child of children) signalChild(child, 'SIGKILL');
}
// The first lines that mention an error, then the last lines, of a server's log.
function logTail(file, n = 3) {
  try {
    const lines = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const errs = lines.filter((l) => /error|fatal|EADDRINUSE|cannot/i.test(l)).slice(0, n);
    const tail = lines.slice(-n).filter((l) => !errs.includes(l));
    return [...errs, ...(tail.length && errs.length ? ['…'] : []), ...tail].join(' / ').slice(0, 800);
  } catch {
    return '';
  }
}
function portInUse(port) {
  return new Promise((resolve) => {
    const s = net.connect({ host: HOST, port });
    s.setTimeout(2000, () => {
      s.destroy();
      resolve(true);
    });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

// ---------- HTTP helpers ----------
async function get(port, p, headers = {}) {
  const r = await fetch(`http://${HOST}:${port}${p}`, { headers, signal: AbortSignal.timeout(10_000) });
  return {
    status: r.status,
    ct: r.headers.get('content-type') || '',
    acao: r.headers.get('access-control-allow-origin'),
    csp: r.headers.get('content-security-policy'),
    body: await r.text(),
  };
}
const isJsonCt = (ct) => ct.toLowerCase().startsWith('application/json');

class SetupError extends Error {}
async function api(port, method, p, body, token, want) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  let r;
  let text;
  try {
    r = await fetch(`http://${HOST}:${port}${p}`, {
      method,
      headers,
      body: payload,
      signal: AbortSignal.timeout(30_000),
    });
    text = await r.text();
  } catch (e) {
    throw new SetupError(`${method} ${p} ${payload ? `${payload.slice(0, 300)} ` : ''}-> request failed: ${e.message}`);
  }
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  if (want !== undefined && r.status !== want) {
    throw new SetupError(
      `${method} ${p} ${payload ? `${payload.slice(0, 300)} ` : ''}-> ${r.status} (expected ${want}) ${text.slice(0, 400)}`,
    );
  }
  return { status: r.status, json, text };
}
async function waitHealthy(child, port) {
  const t0 = Date.now();
  while (Date.now() - t0 < START_TIMEOUT_S * 1000) {
    snapshotTree(child);
    if (child.exitInfo)
      throw new Error(`exited early ${JSON.stringify(child.exitInfo)}; log: ${logTail(child.logFile)}`);
    try {
      const r = await get(port, '/healthz');
      if (r.status === 200) {
        snapshotTree(child);
        return Date.now() - t0;
      }
    } catch {
      // not yet
    }
    await sleep(200);
  }
  throw new Error(`no 200 from /healthz after ${START_TIMEOUT_S} s; log: ${logTail(child.logFile)}`);
}
// Runs fn over items with at most `limit` in flight; stops at the first error and rethrows it.
async function pool(items, limit, fn) {
  let next = 0;
  let failed = null;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        await fn(items[i], i);
      } catch (e) {
        failed ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failed) throw failed;
}

// ---------- scenarios ----------
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const step = (body) => ({ statusCode: 200, body, headers: {} });
const nOf = (body) => /^\{"n":([123])\}$/.exec(body)?.[1];

// t (a target) = { kind: 'node-http' | 'mockyard', ports: [port, …], prefix, pids, info: {endpointId, ruleId, …},
// token, projectId }. With two ports the load is split over both (two autocannon instances at once).
async function checkStatic(t, p) {
  const r = await get(t.ports[0], `${t.prefix}${p}`);
  if (r.status !== 200 || !isJsonCt(r.ct) || r.body !== USERS_BODY)
    return `GET ${p} -> ${r.status} ${r.ct} ${r.body.slice(0, 200)}`;
  if (r.acao !== '*') return `GET ${p}: no Access-Control-Allow-Origin: * (got ${r.acao})`;
  // the contract's sandbox on every mock answer (CONTRACT §9): node-http sends it too, the same bytes
  if (!r.csp?.startsWith('sandbox ')) return `GET ${p}: no Content-Security-Policy: sandbox … (got ${r.csp})`;
  return null;
}
// A sequence check on a fresh rule: n=1,2,3,1, the requests alternating over the target's ports.
async function checkFreshSeq(t, p) {
  const got = [];
  for (const [i, n] of [1, 2, 3, 1].entries()) {
    const r = await get(t.ports[i % t.ports.length], `${t.prefix}${p}`);
    got.push(r.status === 200 ? r.body : `${r.status} ${r.body.slice(0, 100)}`);
    if (r.status !== 200 || !isJsonCt(r.ct) || r.body !== SEQ_BODIES[n - 1])
      return `expected n=1,2,3,1, got ${got.join(' ')}`;
  }
  return null;
}
async function ruleState(t) {
  if (t.kind !== 'mockyard' || !t.info.ruleId) return null;
  const r = await api(
    t.ports[0],
    'GET',
    `/api/projects/${t.projectId}/endpoints/${t.info.endpointId}/rules/${t.info.ruleId}`,
    undefined,
    t.token,
  );
  return r.status === 200 ? (r.json?.state ?? 'no state field') : `GET rule -> ${r.status}`;
}
// Exactness after the load: one probe request (n = k), then EXACT_N (a multiple of 6) requests through
// autocannon with all connections, split over the ports, counting each n; then one more probe. A serial run
// gives EXACT_N/3 of each n, and the last probe must be k's successor. The rule state read over the API
// before and after the EXACT_N requests must be the same.
async function checkSeqExact(t, p) {
  await sleep(1000); // let requests still in flight when the load stopped drain
  const probe = async (port) => {
    const r = await get(port, `${t.prefix}${p}`);
    return nOf(r.body) ?? `${r.status} ${r.body.slice(0, 60)}`;
  };
  const k = await probe(t.ports[0]);
  const s0 = JSON.stringify(await ruleState(t));
  const counts = { 1: 0, 2: 0, 3: 0, other: 0 };
  const statuses = {};
  const per = EXACT_N / t.ports.length;
  await Promise.all(
    t.ports.map((port) =>
      autocannon({
        url: `http://${HOST}:${port}${t.prefix}${p}`,
        connections: Math.min(Math.ceil(CONNECTIONS / t.ports.length), per),
        amount: per,
        requests: [
          {
            method: 'GET',
            onResponse: (status, body) => {
              statuses[status] = (statuses[status] || 0) + 1;
              const n = nOf(String(body));
              counts[n ?? 'other']++;
            },
          },
        ],
      }),
    ),
  );
  const s1 = JSON.stringify(await ruleState(t));
  const k2 = await probe(t.ports[t.ports.length - 1]);
  const total = counts[1] + counts[2] + counts[3] + counts.other;
  const third = EXACT_N / 3;
  const problems = [];
  if (!/^[123]$/.test(k)) problems.push(`probe before: ${k}`);
  if (total !== EXACT_N) problems.push(`got ${total} answers for ${EXACT_N} requests`);
  if (counts[1] !== third || counts[2] !== third || counts[3] !== third || counts.other) {
    problems.push(
      `counts n1=${counts[1]} n2=${counts[2]} n3=${counts[3]} other=${counts.other}, expected ${third} each`,
    );
  }
  if (String(k2) !== String((Number(k) % 3) + 1))
    problems.push(`probe after: n=${k2}, expected ${(Number(k) % 3) + 1}`);
  if (s0 !== 'null' && s0 !== s1) problems.push(`API rule state before ${s0} != after ${s1}`);
  const text =
    `exactness: ${EXACT_N} requests over ${t.ports.length} process(es) (${JSON.stringify(statuses)}) -> ` +
    `n1=${counts[1]} n2=${counts[2]} n3=${counts[3]}; probes n=${k} then n=${k2}` +
    (s0 !== 'null' ? `; rule state ${s0} before and ${s1} after` : '');
  return { ok: problems.length === 0, text: problems.length ? `${text} — FAILED: ${problems.join('; ')}` : text };
}
async function storageLast(t) {
  const r = await api(
    t.ports[0],
    'GET',
    `/api/projects/${t.projectId}/endpoints/${t.info.endpointId}/storage`,
    undefined,
    t.token,
  );
  return r.status === 200 ? r.json?.last : `GET storage -> ${r.status} ${r.text.slice(0, 100)}`;
}

const seqDef = (p) => ({
  endpoint: { method: 'GET', path: p, statusCode: 200, responseBody: '{"n":0}', contentType: 'application/json' },
  rules: [
    {
      name: 'cycle 1,2,3',
      priority: 1,
      conditions: [],
      response: { mode: 'loop', steps: SEQ_BODIES.map(step) },
      actions: [],
    },
  ],
});

let s5Counter = 0;
const SCENARIOS = {
  S1: {
    title: 'static default response',
    path: '/api/users',
    def: {
      endpoint: {
        method: 'GET',
        path: '/api/users',
        statusCode: 200,
        responseBody: USERS_BODY,
        contentType: 'application/json',
      },
      rules: [],
    },
    verify: (t) => checkStatic(t, '/api/users'),
  },
  S2: {
    title: 'two rules, x-tier: vip',
    path: '/api/tier',
    headers: { 'x-tier': 'vip' },
    def: {
      endpoint: {
        method: 'GET',
        path: '/api/tier',
        statusCode: 200,
        responseBody: TIER_BODY.free,
        contentType: 'application/json',
      },
      rules: [
        {
          name: 'vip header',
          priority: 1,
          conditions: [{ target: 'header', key: 'x-tier', operator: 'equals', value: 'vip' }],
          response: { mode: 'loop', steps: [step(TIER_BODY.vip)] },
          actions: [],
        },
        {
          name: 'beta query',
          priority: 2,
          conditions: [{ target: 'query', key: 'beta', operator: 'exists' }],
          response: { mode: 'loop', steps: [step(TIER_BODY.beta)] },
          actions: [],
        },
      ],
    },
    async verify(t) {
      const cases = [
        [{ 'x-tier': 'vip' }, '/api/tier', 'vip'],
        [{ 'x-tier': 'vip' }, '/api/tier?beta=1', 'vip'],
        [{}, '/api/tier?beta=1', 'beta'],
        [{ 'x-tier': 'gold' }, '/api/tier?beta=yes', 'beta'],
        [{}, '/api/tier?beta', 'beta'],
        [{}, '/api/tier', 'free'],
        [{ 'x-tier': 'gold' }, '/api/tier', 'free'],
        [{ 'x-tier': 'VIP' }, '/api/tier', 'free'],
      ];
      for (const [h, p, tier] of cases) {
        const r = await get(t.ports[0], `${t.prefix}${p}`, h);
        if (r.status !== 200 || !isJsonCt(r.ct) || r.body !== TIER_BODY[tier]) {
          return `${JSON.stringify(h)} GET ${p}: expected tier ${tier}, got ${r.status} ${r.ct} ${r.body.slice(0, 200)}`;
        }
      }
      return null;
    },
  },
  S3: {
    title: 'templated default body',
    path: '/api/echo?name=Ada',
    def: {
      endpoint: {
        method: 'GET',
        path: '/api/echo',
        statusCode: 200,
        responseBody: ECHO_TEMPLATE,
        contentType: 'application/json',
      },
      rules: [],
    },
    async verify(t) {
      const ids = new Set();
      for (let i = 0; i < 3; i++) {
        const r = await get(t.ports[0], `${t.prefix}/api/echo?name=Ada`);
        let j;
        try {
          j = JSON.parse(r.body);
        } catch {
          return `not JSON: ${r.status} ${r.body.slice(0, 200)}`;
        }
        if (
          r.status !== 200 ||
          !isJsonCt(r.ct) ||
          j.hello !== 'Ada' ||
          !UUID_RE.test(j.id) ||
          Object.keys(j).length !== 2
        ) {
          return `got ${r.status} ${r.ct} ${r.body.slice(0, 200)}`;
        }
        if (r.body !== `{"hello":"Ada","id":"${j.id}"}`) return `not byte-equal to the template: ${r.body}`;
        ids.add(j.id);
      }
      return ids.size === 3 ? null : 'uuid not fresh per request';
    },
  },
  S4: {
    title: '3-step loop sequence',
    path: '/api/seq',
    def: seqDef('/api/seq'),
    verify: (t) => checkFreshSeq(t, '/api/seq'),
    after: (t) => checkSeqExact(t, '/api/seq'),
  },
  S5: {
    title: 'store_variable action + step',
    path: '/api/store',
    // every request stores a different value: v=1, 2, 3, …
    setupRequest: (req) => ({ ...req, path: `${req.path.split('?')[0]}?v=${++s5Counter}` }),
    def: {
      endpoint: {
        method: 'GET',
        path: '/api/store',
        statusCode: 200,
        responseBody: '{"saved":false}',
        contentType: 'application/json',
      },
      rules: [
        {
          name: 'store last v',
          priority: 1,
          conditions: [],
          response: { mode: 'loop', steps: [step(STORE_BODY)] },
          actions: [{ type: 'store_variable', name: 'last', value: '{{request.query.v}}' }],
        },
      ],
    },
    async verify(t) {
      for (const v of ['first', 'second']) {
        const r = await get(t.ports[0], `${t.prefix}/api/store?v=${v}`);
        if (r.status !== 200 || !isJsonCt(r.ct) || r.body !== STORE_BODY)
          return `GET /api/store?v=${v} -> ${r.status} ${r.ct} ${r.body.slice(0, 200)}`;
        if (t.kind === 'mockyard') {
          const last = await storageLast(t);
          if (last !== v) return `after GET ?v=${v}, storage.last = ${JSON.stringify(last)}`;
        }
      }
      return null;
    },
    async after(t) {
      if (t.kind !== 'mockyard') return null;
      await sleep(1000);
      const during = await storageLast(t);
      const v = `final-${randomBytes(3).toString('hex')}`;
      const r = await get(t.ports[0], `${t.prefix}/api/store?v=${v}`);
      const last = await storageLast(t);
      const ok = /^\d+$/.test(String(during)) && r.body === STORE_BODY && last === v;
      return {
        ok,
        text: `storage after the load: last=${JSON.stringify(during)} (of ${s5Counter} values sent); one more write -> ${JSON.stringify(last)}${ok ? '' : ` — FAILED (expected ${v})`}`,
      };
    },
  },
  S6: {
    title: `S1 in a ${S6_ENDPOINTS}-endpoint project, ${S6_PROJECTS} projects`,
    path: '/api/users',
    verify: (t) => checkStatic(t, '/api/users'),
  },
  S7: {
    title: 'bound GET list of a 100-item collection',
    path: '/api/items',
    def: {
      collection: { name: 'items', seed: ITEMS },
      endpoint: { method: 'GET', path: '/api/items', data: { collection: 'items', operation: 'list' } },
      rules: [],
    },
    async verify(t) {
      const r = await get(t.ports[0], `${t.prefix}/api/items`);
      if (r.status !== 200 || !isJsonCt(r.ct) || r.body !== JSON.stringify(ITEMS))
        return `GET /api/items -> ${r.status} ${r.ct} ${r.body.slice(0, 200)}`;
      return null;
    },
  },
  S8: {
    title: 'bound POST create into a collection',
    path: '/api/items-new',
    method: 'POST',
    body: NEW_ITEM_BODY,
    headers: { 'content-type': 'application/json' },
    def: {
      collection: { name: 'new-items', seed: [] },
      endpoint: { method: 'POST', path: '/api/items-new', data: { collection: 'new-items', operation: 'create' } },
      rules: [],
    },
    async verify(t) {
      const r = await fetch(`http://${HOST}:${t.ports[0]}${t.prefix}/api/items-new`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: NEW_ITEM_BODY,
      });
      const text = await r.text();
      let j;
      try {
        j = JSON.parse(text);
      } catch {
        return `not JSON: ${r.status} ${text.slice(0, 200)}`;
      }
      if (r.status !== 201 || j.name !== 'new item' || !UUID_RE.test(j.id))
        return `POST -> ${r.status} ${text.slice(0, 200)}`;
      return null;
    },
  },
  'S4-pg': {
    title: '3-step loop, 2 processes on PostgreSQL',
    path: '/api/seq-pg',
    split: true,
    def: seqDef('/api/seq-pg'),
    verify: (t) => checkFreshSeq(t, '/api/seq-pg'),
    after: (t) => checkSeqExact(t, '/api/seq-pg'),
  },
};

// S9: S1's answer while 12 MiB OpenAPI descriptions are imported on the same process, one after another
SCENARIOS.S9 = {
  ...SCENARIOS.S1,
  title: 'static response during a 12 MiB OpenAPI import',
  path: '/api/users-import',
  def: { ...SCENARIOS.S1.def, endpoint: { ...SCENARIOS.S1.def.endpoint, path: '/api/users-import' } },
  verify: (t) => checkStatic(t, '/api/users-import'),
  during: importLoop,
};

// S1 on the two processes of the PostgreSQL run: no database on its path, so ≥ 0.8 × S1 is the goal
SCENARIOS['S1-pg'] = { ...SCENARIOS.S1, title: 'static default response, 2 processes on PostgreSQL', split: true };
// S5 there: a storage write per request, group-committed per storage across both processes
SCENARIOS['S5-pg'] = { ...SCENARIOS.S5, title: 'store_variable + step, 2 processes on PostgreSQL', split: true };
// S8 there: an insert per request under the collection's lock, group-committed per collection and session
SCENARIOS['S8-pg'] = { ...SCENARIOS.S8, title: 'bound POST create, 2 processes on PostgreSQL', split: true };

let bigDoc = null;
/** Imports the big description into new projects of the target, one after another, until stopped. */
function importLoop(t) {
  bigDoc ??= Buffer.from(bigDescription());
  const doc = bigDoc;
  let stopped = false;
  const statuses = {};
  let done = 0;
  const started = Date.now();
  const made = [];
  const loop = (async () => {
    while (!stopped) {
      const projectId = await createProject(t.ports[0], t.token, `import-${done}`);
      made.push(projectId);
      const r = await fetch(`http://${HOST}:${t.ports[0]}/api/projects/${encodeURIComponent(projectId)}/import`, {
        method: 'POST',
        body: doc,
        headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      });
      await r.arrayBuffer();
      statuses[r.status] = (statuses[r.status] || 0) + 1;
      done++;
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      // the imported projects (1,300 endpoints each) are not kept for the scenarios after this one
      for (const id of made)
        await api(t.ports[0], 'DELETE', `/api/projects/${encodeURIComponent(id)}`, undefined, t.token, 204);
      const mib = (doc.length / 1048576).toFixed(1);
      return `${done} imports of a ${mib} MiB description (1,300 operations) ran one after another on the same process during the measured period and after it (${((Date.now() - started) / 1000).toFixed(0)} s; statuses ${JSON.stringify(statuses)}): its p50/p99 are the mock answers meanwhile`;
    },
  };
}

// ---------- load ----------
function combine(rs) {
  const codes = {};
  for (const r of rs)
    for (const [k, v] of Object.entries(r.statusCodeStats || {})) codes[k] = (codes[k] || 0) + v.count;
  const total = rs.reduce((a, r) => a + r.requests.total, 0);
  return {
    req_per_sec: Math.round(rs.reduce((a, r) => a + r.requests.average, 0)),
    req_total: total,
    p50_ms: Math.max(...rs.map((r) => r.latency.p50)),
    p99_ms: Math.max(...rs.map((r) => r.latency.p99)),
    max_ms: Math.max(...rs.map((r) => r.latency.max)),
    errors: rs.reduce((a, r) => a + r.errors, 0),
    timeouts: rs.reduce((a, r) => a + r.timeouts, 0),
    non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
    status_codes: codes,
    bytes_per_resp: total ? Math.round(rs.reduce((a, r) => a + r.throughput.total, 0) / total) : 0,
  };
}
async function cannon(t, sc, duration) {
  const parts = sc.split ? t.ports.length : 1;
  const runs = Array.from({ length: parts }, (_, i) => {
    const port = t.ports[i % t.ports.length];
    const opts = {
      url: `http://${HOST}:${port}${t.prefix}${sc.path}`,
      connections: Math.ceil(CONNECTIONS / parts),
      duration,
      pipelining: 1,
      headers: sc.headers || {},
    };
    if (sc.method) opts.method = sc.method;
    if (sc.body) opts.body = sc.body;
    if (sc.setupRequest) {
      opts.requests = [
        { method: 'GET', path: `${t.prefix}${sc.path}`, headers: sc.headers || {}, setupRequest: sc.setupRequest },
      ];
    }
    return autocannon(opts);
  });
  return combine(await Promise.all(runs));
}
// ---------- wrk ----------
const UNITS = { us: 0.001, ms: 1, s: 1000, m: 60000 };
const BYTES = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };
/** wrk's text output → the fields combine() gives for autocannon. */
function parseWrk(out) {
  const num = (re) => {
    const m = re.exec(out);
    return m ? Number(m[1]) : 0;
  };
  const lat = (pct) => {
    const m = new RegExp(`^\\s+${pct}%\\s+([\\d.]+)(us|ms|s|m)`, 'm').exec(out);
    return m ? Math.round(Number(m[1]) * UNITS[m[2]] * 100) / 100 : 0;
  };
  const maxm = /Latency\s+[\d.]+\w+\s+[\d.]+\w+\s+([\d.]+)(us|ms|s|m)/.exec(out);
  const total = num(/(\d+) requests in/);
  const read = /requests in [\d.]+\w+, ([\d.]+)(B|KB|MB|GB) read/.exec(out);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    req_per_sec: Math.round(num(/Requests\/sec:\s+([\d.]+)/)),
    req_total: total,
    p50_ms: lat(50),
    p99_ms: lat(99),
    max_ms: maxm ? Math.round(Number(maxm[1]) * UNITS[maxm[2]] * 100) / 100 : 0,
    errors: sock ? Number(sock[1]) + Number(sock[2]) + Number(sock[3]) : 0,
    timeouts: sock ? Number(sock[4]) : 0,
    non2xx: num(/Non-2xx or 3xx responses: (\d+)/),
    status_codes: {},
    bytes_per_resp: total && read ? Math.round((Number(read[1]) * BYTES[read[2]]) / total) : 0,
  };
}
/** A Lua script for the scenario's method, body and headers (and S5's counter query), or null. */
function wrkScript(t, sc) {
  const lines = [];
  const q = (v) => JSON.stringify(String(v));
  if (sc.method) lines.push(`wrk.method = ${q(sc.method)}`);
  if (sc.body) lines.push(`wrk.body = ${q(sc.body)}`);
  for (const [k, v] of Object.entries(sc.headers || {})) lines.push(`wrk.headers[${q(k)}] = ${q(v)}`);
  if (sc.setupRequest) {
    // S5: a new query value per request (the setupRequest of the autocannon run does the same)
    lines.push(
      'local n = 0',
      `request = function() n = n + 1; return wrk.format(nil, ${q(`${t.prefix}${sc.path}`)} .. "?v=" .. n) end`,
    );
  }
  if (!lines.length) return null;
  const file = path.join(os.tmpdir(), `mockyard-wrk-${process.pid}-${Math.random().toString(36).slice(2)}.lua`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
/** One wrk run (one thread, pinned to LOADGEN_CPUS); its CPU ticks are sampled from /proc while it runs. */
function wrkOnce(url, connections, duration, script) {
  const args = ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', ...(script ? ['-s', script] : []), url];
  const [cmd, argv] = PIN ? ['taskset', ['-c', LOADGEN_CPUS, 'wrk', ...args]] : ['wrk', args];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let ticks = 0;
    const sample = setInterval(() => {
      const f = procStat(child.pid);
      if (f) ticks = Number(f[11]) + Number(f[12]);
    }, 100);
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sample);
      if (code !== 0) reject(new Error(`wrk exited ${code}: ${out.slice(0, 300)}`));
      else resolve({ ...parseWrk(out), loadgen_ticks: ticks });
    });
  });
}
async function wrk(t, sc, duration) {
  const parts = sc.split ? t.ports.length : 1;
  const script = wrkScript(t, sc);
  try {
    const rs = await Promise.all(
      Array.from({ length: parts }, (_, i) =>
        wrkOnce(
          `http://${HOST}:${t.ports[i % t.ports.length]}${t.prefix}${sc.path}`,
          Math.ceil(CONNECTIONS / parts),
          duration,
          script,
        ),
      ),
    );
    const total = rs.reduce((a, r) => a + r.req_total, 0);
    return {
      req_per_sec: rs.reduce((a, r) => a + r.req_per_sec, 0),
      req_total: total,
      p50_ms: Math.max(...rs.map((r) => r.p50_ms)),
      p99_ms: Math.max(...rs.map((r) => r.p99_ms)),
      max_ms: Math.max(...rs.map((r) => r.max_ms)),
      errors: rs.reduce((a, r) => a + r.errors, 0),
      timeouts: rs.reduce((a, r) => a + r.timeouts, 0),
      non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
      status_codes: {},
      bytes_per_resp: rs[0].bytes_per_resp,
      loadgen_ticks: rs.reduce((a, r) => a + r.loadgen_ticks, 0),
    };
  } finally {
    if (script) fs.rmSync(script, { force: true });
  }
}
const load = (t, sc, duration) => (LOADGEN === 'wrk' ? wrk(t, sc, duration) : cannon(t, sc, duration));

async function measure(t, sc) {
  const c0 = cpuTicks(t.pids);
  const l0 = process.cpuUsage();
  const w0 = process.hrtime.bigint();
  const b0 = sysBusyTicks();
  // S9: work on the same process while it answers the load (a large import), stopped after it
  const during = sc.during && t.kind === 'mockyard' ? sc.during(t) : null;
  const { loadgen_ticks, ...r } = await load(t, sc, DURATION);
  if (during) r.during = await during.stop();
  const wall = Number(process.hrtime.bigint() - w0) / 1e9;
  const lg = process.cpuUsage(l0);
  const srvTicks = cpuTicks(t.pids) - c0;
  // the driver's CPU: this process (autocannon runs in it) plus wrk's own ticks when wrk drives
  const lgTicks = ((lg.user + lg.system) / 1e6) * CLK_TCK + (loadgen_ticks ?? 0);
  const otherTicks = sysBusyTicks() - b0 - srvTicks - lgTicks;
  return {
    ...r,
    rss_after_mb: rssMB(t.pids),
    server_cpu_pct: Math.round((srvTicks / CLK_TCK / wall) * 100),
    // the figure that does not depend on the load generator: server CPU time per answered request
    server_cpu_us_per_req: r.req_total ? Math.round(((srvTicks / CLK_TCK) * 1e6 * 10) / r.req_total) / 10 : null,
    loadgen_cpu_pct: Math.round((lgTicks / CLK_TCK / wall) * 100),
    other_cpu_pct: Math.max(0, Math.round((otherTicks / CLK_TCK / wall) * 100)),
  };
}
// Verify (once), warm up, measure RUNS times, then the scenario's after-load check. Returns the row.
// One scenario on node-http and Mockyard, interleaved so that both see the same machine: each server's
// answers are verified; then node-http is warmed up and measured, then Mockyard is warmed up and measured,
// and with RUNS > 1 the measured periods alternate (node-http, Mockyard, node-http, …). Only one server is
// under load at a time; the other one sits idle. `targets` are targets, or { label, error } for a server
// that could not be set up for this scenario. Pushes one row per server into results.
async function runPair(id, targets, results) {
  const sc = SCENARIOS[id];
  const live = [];
  for (const t of targets) {
    const row = { id, server: t.label, runs: [] };
    results.push(row);
    if (t.error) {
      row.error = t.error;
      continue;
    }
    const bad = await sc.verify(t).catch((e) => `request failed: ${e.message}`);
    if (bad) {
      row.error = `not equivalent: ${bad}`;
      log(`${t.label} ${id}: ${row.error}`);
      continue;
    }
    log(`${t.label} ${id}: answers verified`);
    live.push({ t, row });
  }
  if (!live.length) return;
  const quiet = await waitQuiet(id, [...new Set(live.flatMap((x) => x.t.pids))]);
  for (let i = 0; i < RUNS; i++) {
    for (const { t, row } of live) {
      const others = live.filter((o) => o.t !== t).flatMap((o) => o.t.pids);
      pausePids(others);
      let m;
      try {
        if (i === 0 && WARMUP > 0) await load(t, sc, WARMUP);
        m = await measure(t, sc);
      } finally {
        resumePids(others);
      }
      row.runs.push(m);
      log(
        `${t.label} ${id} run ${i + 1}/${RUNS}: ${m.req_per_sec} req/s p50=${m.p50_ms}ms p99=${m.p99_ms}ms ` +
          `err=${m.errors} timeouts=${m.timeouts} non2xx=${m.non2xx} rss=${m.rss_after_mb}MB ` +
          `srvCPU=${m.server_cpu_pct}% (${m.server_cpu_us_per_req} µs/req) driverCPU=${m.loadgen_cpu_pct}% otherCPU=${m.other_cpu_pct}%`,
      );
    }
  }
  for (const { t, row } of live) {
    const sorted = [...row.runs].sort((a, b) => a.req_per_sec - b.req_per_sec);
    Object.assign(row, sorted[Math.floor((sorted.length - 1) / 2)]);
    row.quiet_before_pct = quiet;
    row.rss_after_mb = rssMB(t.pids);
    if (sc.after) {
      const a = await sc.after(t).catch((e) => ({ ok: false, text: `after-load check failed: ${e.message}` }));
      if (a) {
        row.after = a.text;
        row.after_ok = a.ok;
        log(`${t.label} ${id}: ${a.text}`);
      }
    }
  }
}

// ---------- node-http ----------
// Starts the reference server; returns its target, or { label, error }.
async function startNodeHttp(notes) {
  const label = 'node-http';
  const fail = (why) => {
    notes.push(`node-http: ${why}`);
    log(`node-http: ${why}`);
    return { label, error: why };
  };
  if (await portInUse(NODE_HTTP_PORT)) return fail(`port ${NODE_HTTP_PORT} already in use, not started`);
  const child = startProc('node-http', process.execPath, [
    path.join(HERE, 'node-http-server.mjs'),
    String(NODE_HTTP_PORT),
    HOST,
  ]);
  const t0 = Date.now();
  for (;;) {
    if (child.exitInfo) {
      await stopProc(child);
      return fail(`exited ${JSON.stringify(child.exitInfo)}: ${logTail(child.logFile)}`);
    }
    if (await portInUse(NODE_HTTP_PORT)) break;
    if (Date.now() - t0 > 30_000) {
      await stopProc(child);
      return fail('did not listen within 30 s');
    }
    await sleep(100);
  }
  // Two ports (the same one twice): S4-pg splits its load into two autocannon instances, as for Mockyard.
  return {
    label,
    kind: 'node-http',
    ports: [NODE_HTTP_PORT, NODE_HTTP_PORT],
    prefix: '/m/node-http-bench',
    pids: [child.pid],
    child,
    info: {},
  };
}

// ---------- mockyard ----------
// Extracts MOCKYARD_REF into WORK/snapshot (node_modules linked from this checkout) and builds it there.
function prepareSnapshot() {
  const dir = path.join(WORK, 'snapshot');
  fs.mkdirSync(dir);
  const logFile = path.join(LOG_DIR, 'snapshot-build.log');
  const fd = fs.openSync(logFile, 'a');
  try {
    execFileSync(
      'sh',
      ['-c', 'git -C "$1" archive --format=tar "$2" | tar -x -C "$3"', 'sh', ROOT, MOCKYARD_REF, dir],
      {
        stdio: ['ignore', fd, fd],
      },
    );
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    const t0 = Date.now();
    log(`building the snapshot of ${MOCKYARD_REF} in ${dir}...`);
    execFileSync(process.execPath, [path.join(dir, 'scripts', 'build.mjs')], {
      cwd: dir,
      stdio: ['ignore', fd, fd],
      timeout: 600_000,
    });
    log(`snapshot built in ${Math.round((Date.now() - t0) / 1000)} s`);
  } catch (e) {
    throw new Error(`snapshot of ${MOCKYARD_REF} failed (${e.message.split('\n')[0]}); log: ${logTail(logFile)}`);
  } finally {
    fs.closeSync(fd);
  }
  MOCKYARD_DIR = dir;
}
let snapshotError = null;
function mockyardStartProblem() {
  if (snapshotError) return snapshotError;
  if (!fs.existsSync(path.join(MOCKYARD_DIR, 'scripts', 'start.mjs'))) return `no scripts/start.mjs in ${MOCKYARD_DIR}`;
  if (!fs.existsSync(path.join(MOCKYARD_DIR, 'node_modules'))) return `no node_modules in ${MOCKYARD_DIR} (run npm ci)`;
  return null;
}
async function startMockyard(name, port, databaseUrl) {
  if (await portInUse(port)) throw new Error(`port ${port} already in use`);
  // the environment assignments and node flags of `npm start` (package.json), so the measured
  // process is the one users run
  const start = (() => {
    try {
      const script = JSON.parse(fs.readFileSync(path.join(MOCKYARD_DIR, 'package.json'), 'utf8')).scripts?.start ?? '';
      const words = script.split(/\s+/);
      const env = Object.fromEntries(
        words
          .filter((w) => /^[A-Z_][A-Z0-9_]*=/.test(w))
          .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
      );
      return { env, flags: words.filter((w) => w.startsWith('--')) };
    } catch {
      return { env: {}, flags: [] };
    }
  })();
  const child = startProc(name, process.execPath, [...start.flags, path.join(MOCKYARD_DIR, 'scripts', 'start.mjs')], {
    cwd: MOCKYARD_DIR,
    extraEnv: { ...start.env, PORT: String(port), HOST, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
  });
  try {
    const ms = await waitHealthy(child, port);
    log(`${name} healthy in ${ms} ms on port ${port}`);
    return { child, ms };
  } catch (e) {
    await stopProc(child);
    throw e;
  }
}
async function register(port) {
  const email = `bench-${Date.now()}-${randomBytes(3).toString('hex')}@example.com`;
  const reg = await api(port, 'POST', '/api/auth/register', { email, password: 'bench-password-1' }, undefined, 201);
  if (!reg.json?.token) throw new SetupError(`POST /api/auth/register -> 201 without token: ${reg.text.slice(0, 300)}`);
  return reg.json.token;
}
async function createProject(port, token, name) {
  const p = await api(port, 'POST', '/api/projects', { name }, token, 201);
  if (!p.json?.id) throw new SetupError(`POST /api/projects -> 201 without id: ${p.text.slice(0, 300)}`);
  return p.json.id;
}
// One endpoint and its rules; returns { endpointId, ruleId (the last rule's) }.
async function createEndpoint(port, token, projectId, def) {
  if (def.collection) {
    const c = `/api/projects/${encodeURIComponent(projectId)}/collections`;
    await api(port, 'POST', c, def.collection, token, 201);
  }
  const base = `/api/projects/${encodeURIComponent(projectId)}/endpoints`;
  const ep = await api(port, 'POST', base, def.endpoint, token, 201);
  if (!ep.json?.id) throw new SetupError(`POST ${base} -> 201 without id: ${ep.text.slice(0, 300)}`);
  let ruleId = null;
  for (const rule of def.rules) {
    const r = await api(port, 'POST', `${base}/${encodeURIComponent(ep.json.id)}/rules`, rule, token, 201);
    ruleId = r.json?.id ?? null;
  }
  return { endpointId: ep.json.id, ruleId };
}
// S6: S6_PROJECTS projects in the store in all (counting the bench project), the S6 project with
// S6_ENDPOINTS endpoints, /api/users created last; every other new project gets one GET /api/users endpoint.
async function setupS6(port, token, existingProjects) {
  const t0 = Date.now();
  let requests = 0;
  const projectId = await createProject(port, token, 'bench-S6-big');
  requests++;
  const methods = ['GET', 'POST', 'PUT', 'DELETE'];
  const defs = [];
  for (let i = 0; defs.length < S6_ENDPOINTS - 1; i++) {
    const res = `/api/r${i}`;
    defs.push({ method: methods[i % 4], path: `${res}/items`, statusCode: 200, responseBody: `{"r":${i}}` });
    if (defs.length < S6_ENDPOINTS - 1)
      defs.push({
        method: 'GET',
        path: `${res}/items/:id`,
        statusCode: 200,
        responseBody: `{"r":${i},"id":"{{request.params.id}}"}`,
      });
  }
  defs.push(SCENARIOS.S1.def.endpoint);
  let lastProgress = Date.now();
  const base = `/api/projects/${encodeURIComponent(projectId)}/endpoints`;
  // creation time of each block of 1000 endpoints: a rate that falls as the project grows shows up here
  const marks = [Date.now()];
  let created = 0;
  await pool(defs, SETUP_CONCURRENCY, async (d) => {
    await api(port, 'POST', base, d, token, 201);
    requests++;
    if (++created % 1000 === 0) marks.push(Date.now());
    if (Date.now() - lastProgress > 10_000) {
      lastProgress = Date.now();
      log(`S6 setup: ${requests} requests so far`);
    }
  });
  const endpointsDone = Date.now();
  const others = Math.max(0, S6_PROJECTS - existingProjects - 1);
  await pool(
    Array.from({ length: others }, (_, i) => i),
    SETUP_CONCURRENCY,
    async (i) => {
      const pid = await createProject(port, token, `bench-filler-${i}`);
      await api(
        port,
        'POST',
        `/api/projects/${encodeURIComponent(pid)}/endpoints`,
        SCENARIOS.S1.def.endpoint,
        token,
        201,
      );
      requests += 2;
      if (Date.now() - lastProgress > 10_000) {
        lastProgress = Date.now();
        log(`S6 setup: ${requests} requests so far`);
      }
    },
  );
  const s = (Date.now() - t0) / 1000;
  const list = await api(port, 'GET', '/api/projects', undefined, token, 200);
  const count = Array.isArray(list.json) ? list.json.length : `not an array: ${list.text.slice(0, 100)}`;
  const epS = (endpointsDone - t0) / 1000;
  const blocks = marks.slice(1).map((m, i) => Math.round(1000 / ((m - marks[i]) / 1000)));
  const blockText = blocks.length > 1 ? `; endpoints/s per block of 1000: ${blocks.join(', ')}` : '';
  return {
    projectId,
    text:
      `S6 setup: ${S6_ENDPOINTS} endpoints in one project (${round1(epS)} s, ${Math.round(S6_ENDPOINTS / epS)}/s${blockText}), ` +
      `then ${others} more projects with one endpoint each; ${requests} API requests, ${SETUP_CONCURRENCY} in flight, ` +
      `${round1(s)} s in all (${Math.round(requests / s)} req/s); GET /api/projects lists ${count} projects`,
  };
}

async function benchMockyard(ids, nodeT, results, notes, meta) {
  const label = 'mockyard';
  // Without Mockyard the node-http rows are still measured. Rows and ratio lines get the short reason,
  // the notes keep all of it.
  const failAll = async (short, detail = '') => {
    notes.push(`mockyard: ${short}${detail ? `: ${detail}` : ''}`);
    log(`mockyard: ${short}${detail ? `: ${detail}` : ''}`);
    for (const id of ids) await runPair(id, [nodeT, { label, error: short }], results);
  };
  const problem = mockyardStartProblem();
  if (problem) return failAll(`not available: ${problem}`);
  const dbDir = fs.mkdtempSync(path.join(WORK, 'sqlite-'));
  let proc = null;
  try {
    try {
      proc = await startMockyard('mockyard', MOCKYARD_PORT, `sqlite:${path.join(dbDir, 'bench.db')}`);
    } catch (e) {
      return await failAll('not available: failed to start (see notes)', e.message);
    }
    meta.mockyard_startup_ms = proc.ms;
    const pids = [proc.child.pid];
    const port = MOCKYARD_PORT;
    let token;
    let projectId;
    try {
      token = await register(port);
      projectId = await createProject(port, token, 'bench');
    } catch (e) {
      return await failAll('setup over the API failed (see notes)', e.message);
    }
    const infos = {};
    for (const id of ids.filter((x) => SCENARIOS[x].def)) {
      try {
        infos[id] = await createEndpoint(port, token, projectId, SCENARIOS[id].def);
      } catch (e) {
        infos[id] = { error: `setup failed: ${e.message}` };
        log(`mockyard ${id}: ${infos[id].error}`);
      }
    }
    await sleep(300);
    notes.push(`mockyard (SQLite): healthy ${proc.ms} ms after start; RSS after the small setup ${rssMB(pids)} MB`);
    const base = { label, kind: 'mockyard', ports: [port, port], pids, token };
    const runOne = (id) => {
      const my = infos[id].error
        ? { label, error: infos[id].error }
        : { ...base, prefix: `/m/${encodeURIComponent(projectId)}`, info: infos[id], projectId };
      return runPair(id, [nodeT, my], results);
    };
    // S6's RSS is read on a process that has answered S1–S5, as before S7–S9 existed: S7's lists
    // (100 items per answer) leave the heap ~80 MB larger for a while, and S9's imports (1,300
    // endpoints each, two worker heaps) more; they run after S6, S9 last
    const disturbing = (x) => Boolean(SCENARIOS[x].during);
    const beforeS6 = (x) => ALL_IDS.indexOf(x) < ALL_IDS.indexOf('S6') && !disturbing(x);
    const afterS6 = [...ids.filter((x) => x !== 'S6' && !beforeS6(x) && !disturbing(x)), ...ids.filter(disturbing)];
    for (const id of ids.filter(beforeS6)) await runOne(id);
    if (ids.includes('S6')) {
      const rssBefore = rssMB(pids);
      log(`S6 setup: ${S6_ENDPOINTS} endpoints, ${S6_PROJECTS} projects over the API...`);
      let my;
      let s6;
      try {
        s6 = await setupS6(port, token, 1);
        log(s6.text);
        my = { ...base, prefix: `/m/${encodeURIComponent(s6.projectId)}`, info: {}, projectId: s6.projectId };
      } catch (e) {
        my = { label, error: `setup failed: ${e.message}` };
        log(`mockyard S6: ${my.error}`);
      }
      const rssAfterSetup = rssMB(pids);
      await runPair('S6', [nodeT, my], results);
      if (s6) {
        meta.rss_after_s6_mb = rssMB(pids);
        notes.push(
          `${s6.text}. Mockyard RSS: ${rssBefore} MB before the S6 setup, ${rssAfterSetup} MB after it, ` +
            `${meta.rss_after_s6_mb} MB after the S6 load`,
        );
      }
    }
    for (const id of afterS6) await runOne(id);
  } finally {
    if (proc) await stopProc(proc.child);
    serverLogNote(notes, 'mockyard', path.join(LOG_DIR, 'mockyard.log'));
    if (!KEEP_TMP) fs.rmSync(dbDir, { recursive: true, force: true });
  }
}
function serverLogNote(notes, name, file) {
  let lines = [];
  try {
    lines = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim());
  } catch {
    return;
  }
  // npm/start.mjs banners are not pino lines; count pino warn+ lines (level >= 40) and anything unparsable.
  const odd = lines.filter((l) => {
    try {
      return (JSON.parse(l).level ?? 40) >= 40;
    } catch {
      return true;
    }
  });
  if (odd.length)
    notes.push(
      `${name} log (${file}): ${odd.length} line(s) at warn or above / not pino, first: ${odd
        .slice(0, 3)
        .map((l) => l.slice(0, 300))
        .join(' / ')}`,
    );
}

// ---------- S1-pg, S4-pg: two Mockyard processes on one fresh PostgreSQL database ----------
let pgDrop = null; // async () => drops the database created for the -pg scenarios
async function benchPg(ids, nodeT, results, notes) {
  const label = 'mockyard ×2 (pg)';
  const fail = async (why) => {
    notes.push(`${ids.join(', ')}: ${why}`);
    log(`mockyard ${ids.join(', ')}: ${why}`);
    for (const id of ids) await runPair(id, [nodeT, { label, error: why }], results);
  };
  if (!PG_URL) return fail('set PG_URL (or TEST_DATABASE_URL) to a PostgreSQL URL to run it');
  const problem = mockyardStartProblem();
  if (problem) return fail(`not available: ${problem}`);
  const pg = requireFromRoot('pg');
  const dbName = `mockyard_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (sql) => {
    const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 10_000 });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  try {
    await admin(`CREATE DATABASE "${dbName}"`);
  } catch (e) {
    return fail(`could not create database ${dbName} via ${redact(PG_URL)}: ${e.message}`);
  }
  pgDrop = async () => {
    pgDrop = null;
    await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    log(`dropped database ${dbName}`);
  };
  const url = new URL(PG_URL);
  url.pathname = `/${dbName}`;
  const procs = [];
  try {
    try {
      // the first process creates the schema; the second starts once it is healthy
      procs.push(await startMockyard('mockyard-pg-a', MOCKYARD_PORT, url.toString()));
      procs.push(await startMockyard('mockyard-pg-b', MOCKYARD_PORT + 1, url.toString()));
    } catch (e) {
      return await fail(`not available: failed to start on PostgreSQL: ${e.message}`);
    }
    const ports = [MOCKYARD_PORT, MOCKYARD_PORT + 1];
    let token;
    let projectId;
    const infos = {};
    try {
      token = await register(ports[0]);
      projectId = await createProject(ports[0], token, 'bench-pg');
      for (const id of ids) infos[id] = await createEndpoint(ports[0], token, projectId, SCENARIOS[id].def);
    } catch (e) {
      return await fail(`setup failed: ${e.message}`);
    }
    await sleep(1200); // a management change reaches every other process within 1 s (CONTRACT §6)
    const pids = procs.map((p) => p.child.pid);
    for (const id of ids) {
      const my = {
        label,
        kind: 'mockyard',
        ports,
        prefix: `/m/${encodeURIComponent(projectId)}`,
        pids,
        info: infos[id],
        token,
        projectId,
      };
      await runPair(id, [nodeT, my], results);
    }
    notes.push(
      `${ids.join(', ')}: two Mockyard processes (ports ${ports.join(', ')}) on a fresh database ${dbName} of ${redact(PG_URL)}, ` +
        `both pinned to CPU ${PIN ? SERVER_CPUS : '(none)'}; PostgreSQL itself is not pinned and its CPU counts as "other". ` +
        `Two autocannon instances of ${Math.ceil(CONNECTIONS / 2)} connections each run at once (one per process; ` +
        'node-http gets the same two instances on its one process): req/s is their sum, p50/p99 the worse of the two.',
    );
  } finally {
    for (const p of procs) await stopProc(p.child);
    serverLogNote(notes, 'mockyard-pg-a', path.join(LOG_DIR, 'mockyard-pg-a.log'));
    serverLogNote(notes, 'mockyard-pg-b', path.join(LOG_DIR, 'mockyard-pg-b.log'));
    if (pgDrop) await pgDrop().catch((e) => notes.push(`-pg: could not drop database ${dbName}: ${e.message}`));
  }
}
function redact(u) {
  try {
    const x = new URL(u);
    if (x.password) x.password = '***';
    return x.toString();
  } catch {
    return '(unparsable URL)';
  }
}

// ---------- report ----------
function wrkVersion() {
  try {
    return execFileSync('wrk', ['--version'], { encoding: 'utf8' }).split('\n')[0];
  } catch (e) {
    return String(e.stdout || '').split('\n')[0] || 'wrk';
  }
}
function cpuModel() {
  try {
    return (
      /model name\s*:\s*(.*)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() || os.cpus()[0]?.model || '?'
    );
  } catch {
    return os.cpus()[0]?.model || '?';
  }
}
function gitRev() {
  try {
    if (MOCKYARD_REF) {
      const r = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', MOCKYARD_REF]).toString().trim();
      return `${r} (snapshot of ${MOCKYARD_REF})`;
    }
    const rev = execFileSync('git', ['-C', MOCKYARD_DIR, 'rev-parse', '--short', 'HEAD'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
    const dirty = execFileSync('git', ['-C', MOCKYARD_DIR, 'status', '--porcelain', '--', 'src', 'scripts'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
    return `${rev}${dirty ? ' (src/ or scripts/ modified)' : ''}`;
  } catch {
    return '?';
  }
}
function commandLine() {
  const knobs = [
    'SCENARIOS',
    'CONNECTIONS',
    'WARMUP',
    'DURATION',
    'RUNS',
    'PIN',
    'SERVER_CPUS',
    'LOADGEN_CPUS',
    'WRITE_RESULTS',
    'NICE',
    'S6_PROJECTS',
    'S6_ENDPOINTS',
    'SETUP_CONCURRENCY',
    'EXACT_N',
    'NODE_HTTP_PORT',
    'MOCKYARD_PORT',
    'MOCKYARD_DIR',
    'MOCKYARD_REF',
  ];
  const set = knobs.filter((k) => env[k] !== undefined && env[k] !== '').map((k) => `${k}=${env[k]}`);
  if (env.PG_URL) set.push(`PG_URL=${redact(env.PG_URL)}`);
  else if (env.TEST_DATABASE_URL) set.push(`TEST_DATABASE_URL=${redact(env.TEST_DATABASE_URL)}`);
  return [...set, env.npm_lifecycle_event === 'bench' ? 'npm run bench' : 'node bench/run.mjs'].join(' ');
}
const cell = (s) =>
  String(s)
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');
function ratios(results) {
  const out = {};
  for (const id of SELECTED) {
    const m = results.find((r) => r.id === id && r.server !== 'node-http');
    const b = results.find((r) => r.id === id && r.server === 'node-http');
    if (!m || m.error) out[id] = { value: null, why: m?.error || 'not run' };
    else if (!b || b.error || !b.req_per_sec) out[id] = { value: null, why: 'no node-http baseline in this run' };
    else
      out[id] = {
        value: m.req_per_sec / b.req_per_sec,
        cpu:
          m.server_cpu_us_per_req && b.server_cpu_us_per_req ? m.server_cpu_us_per_req / b.server_cpu_us_per_req : null,
      };
  }
  return out;
}
function markdown(meta, results, notes) {
  const L = [];
  L.push(`# Mockyard benchmark (${meta.date})`, '');
  L.push(`- Command: \`${meta.command}\``);
  L.push(
    `- Mockyard: git ${meta.git}; node ${meta.node}; load generator ${LOADGEN === 'wrk' ? `wrk (${meta.wrk})` : `autocannon ${meta.autocannon}`}`,
  );
  L.push(`- Host: ${meta.cpus} x ${meta.cpu_model}, ${meta.mem_gb} GB RAM, ${meta.os}`);
  L.push(
    `- Load: ${CONNECTIONS} connections, ${WARMUP} s warm-up then ${RUNS} x ${DURATION} s measured per scenario${RUNS > 1 ? ' (median run by req/s shown)' : ''}; ` +
      `one server under load at a time (node-http then Mockyard, per scenario) on ${HOST}; ${PIN ? `servers pinned to CPU ${SERVER_CPUS}, driver (${LOADGEN}${LOADGEN === 'wrk' ? ', one thread' : ''}) to CPU ${LOADGEN_CPUS}` : 'no CPU pinning'}` +
      (NICE !== null ? `; servers and driver at nice ${NICE}` : ''),
  );
  L.push('');
  L.push(
    '| Scenario | Server | req/s | vs node-http | server CPU µs/req | CPU/req vs node-http | p50 ms | p99 ms | errors / timeouts / non-2xx | RSS after (MB) | server CPU % | driver CPU % | other CPU % | bytes/resp |',
  );
  L.push('|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|');
  const r = ratios(results);
  for (const id of SELECTED) {
    for (const row of results.filter((x) => x.id === id)) {
      const name = `${id} ${SCENARIOS[id].title}`;
      if (row.error) {
        L.push(`| ${name} | ${row.server} | n/a: ${cell(row.error)} | | | | | | | | | | | |`);
        continue;
      }
      const runs = row.runs.length > 1 ? ` (${row.runs.map((x) => x.req_per_sec).join(', ')})` : '';
      // every period's CPU too: how far the machine's speed moved between the periods shows here
      const cpuRuns = row.runs.length > 1 ? ` (${row.runs.map((x) => x.server_cpu_us_per_req ?? '-').join(', ')})` : '';
      const ratio = row.server === 'node-http' ? '1.00' : r[id].value == null ? '-' : r[id].value.toFixed(2);
      const cpuRatio = row.server === 'node-http' ? '1.00' : r[id].cpu == null ? '-' : r[id].cpu.toFixed(2);
      L.push(
        `| ${name} | ${row.server} | ${row.req_per_sec}${runs} | ${ratio} | ${row.server_cpu_us_per_req ?? '-'}${cpuRuns} | ${cpuRatio} | ${row.p50_ms} | ${row.p99_ms} | ${row.errors} / ${row.timeouts} / ${row.non2xx} | ` +
          `${row.rss_after_mb} | ${row.server_cpu_pct} | ${row.loadgen_cpu_pct} | ${row.other_cpu_pct} | ${row.bytes_per_resp} |`,
      );
    }
  }
  L.push('');
  L.push(
    '"vs node-http" = Mockyard req/s / node-http req/s for the same scenario, this run; "CPU/req vs node-http" = Mockyard server CPU µs per answered request / node-http\'s — the figure that does not depend on how fast the load generator is. RSS is the server process tree right after the measured period. ' +
      'Driver CPU % near 100 means the load generator, not the server, was the limit (on a quiet machine this is the case for node-http, whose req/s is then a lower bound). ' +
      'Other CPU % is CPU used by unrelated processes during the measured period (should be ~0).',
  );
  L.push('', 'Checks and notes:', '');
  for (const row of results) if (row.after) L.push(`- ${row.server} ${row.id}: ${row.after}`);
  for (const row of results) if (row.during) L.push(`- ${row.server} ${row.id}: ${row.during}`);
  for (const row of results) {
    if (!row.error && (row.errors || row.timeouts || row.non2xx)) {
      L.push(
        `- ${row.server} ${row.id}: ${row.errors} errors, ${row.timeouts} timeouts, ${row.non2xx} non-2xx (status counts ${JSON.stringify(row.status_codes)})`,
      );
    }
  }
  const noisy = results.filter((row) => !row.error && row.other_cpu_pct > 2 * QUIET_MAX_PCT);
  if (noisy.length) {
    const pcts = noisy.map((row) => row.other_cpu_pct);
    L.push(
      `- NOISY: during ${noisy.length} of the measured periods (${[...new Set(noisy.map((row) => row.id))].join(', ')}) other processes ` +
        `used ${Math.min(...pcts)}-${Math.max(...pcts)}% of a core (100 = one of the ${os.cpus().length} CPUs): the servers did not have their CPU ` +
        'to themselves, so req/s are low and the ratios approximate; rerun on a quiet machine.',
    );
  }
  for (const row of results) {
    if (!row.error && row.loadgen_cpu_pct >= 85) {
      L.push(
        `- ${row.server} ${row.id}: driver at ${row.loadgen_cpu_pct}% of its CPU: req/s partly capped by autocannon (a lower bound)`,
      );
    }
  }
  for (const n of notes) L.push(`- ${n}`);
  L.push('', '```', ...summaryLines(results), '```', '');
  return L.join('\n');
}
function summaryLines(results) {
  const r = ratios(results);
  const lines = [];
  if (SELECTED.includes('S6') && results.find((x) => x.id === 'S6' && x.server !== 'node-http' && !x.error)) {
    const s6 = results.find((x) => x.id === 'S6' && x.server !== 'node-http');
    lines.push(`mockyard RSS after S6 = ${s6.rss_after_mb} MB`);
  }
  for (const id of SELECTED)
    lines.push(
      `${id} mockyard/node-http = ${r[id].value == null ? `n/a (${r[id].why.length > 160 ? `${r[id].why.slice(0, 160)}…` : r[id].why})` : r[id].value.toFixed(2)}`,
    );
  const mine = (id) => results.find((x) => x.id === id && x.server !== 'node-http' && !x.error);
  if (mine('S1') && mine('S1-pg'))
    lines.push(
      `S1-pg (2 processes, PostgreSQL) / S1 (1 process, SQLite) = ${(mine('S1-pg').req_per_sec / mine('S1').req_per_sec).toFixed(2)} (goal ≥ 0.8); ` +
        `each against node-http of its own period, (S1-pg / node-http) / (S1 / node-http) = ${
          r['S1-pg']?.value && r.S1?.value ? (r['S1-pg'].value / r.S1.value).toFixed(2) : 'n/a'
        } (the machine's speed can drift between the two periods)`,
    );
  if (mine('S4-pg')) lines.push(`S4-pg = ${mine('S4-pg').req_per_sec} req/s (goal ≥ 10,000, exact)`);
  lines.push(
    `ratio ${SELECTED.map((id) => `${id}=${r[id].value == null ? 'n/a' : r[id].value.toFixed(2)}`).join(' ')}`,
    `cpu/req ratio ${SELECTED.map((id) => `${id}=${r[id]?.cpu == null ? 'n/a' : r[id].cpu.toFixed(2)}`).join(' ')}`,
  );
  return lines;
}

// ---------- main ----------
async function cleanupAndExit(code) {
  killAllSync();
  if (pgDrop) await Promise.race([pgDrop().catch(() => {}), sleep(5000)]);
  if (!KEEP_TMP) {
    for (const d of fs.readdirSync(WORK))
      if (d !== 'logs') fs.rmSync(path.join(WORK, d), { recursive: true, force: true });
  }
  process.exit(code);
}
process.on('exit', killAllSync);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    log(`got ${sig}, stopping every server started`);
    cleanupAndExit(130);
  });
}
setTimeout(() => {
  log(`MAX_TOTAL_S=${MAX_TOTAL_S} reached, stopping`);
  cleanupAndExit(3);
}, MAX_TOTAL_S * 1000).unref();

async function main() {
  const meta = {
    date: new Date().toISOString(),
    command: commandLine(),
    git: gitRev(),
    node: process.version,
    autocannon: requireFromRoot('autocannon/package.json').version,
    wrk: LOADGEN === 'wrk' ? wrkVersion() : null,
    cpus: os.cpus().length,
    cpu_model: cpuModel(),
    mem_gb: round1(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
  };
  log(
    `scenarios: ${SELECTED.join(', ')}; ${CONNECTIONS} connections, warm-up ${WARMUP} s, ${RUNS} x ${DURATION} s; pin: ${PIN}; logs in ${LOG_DIR}`,
  );
  const results = [];
  const notes = [];
  if (MOCKYARD_REF && SELECTED.length) {
    try {
      prepareSnapshot();
    } catch (e) {
      snapshotError = `snapshot of ${MOCKYARD_REF} did not build (see notes)`;
      notes.push(`mockyard: ${e.message}`);
      log(e.message);
    }
  }
  const nodeT = await startNodeHttp(notes);
  try {
    const sqliteIds = SELECTED.filter((id) => !isPg(id));
    if (sqliteIds.length) await benchMockyard(sqliteIds, nodeT, results, notes, meta);
    const pgIds = SELECTED.filter(isPg);
    if (pgIds.length) await benchPg(pgIds, nodeT, results, notes);
  } finally {
    if (nodeT.child) await stopProc(nodeT.child);
  }
  if (children.size) {
    log(`WARNING: still running: ${[...children].map((c) => c.pid).join(',')}, killing`);
    killAllSync();
  }
  const md = markdown(meta, results, notes);
  fs.writeFileSync(path.join(WORK, 'results.json'), `${JSON.stringify({ meta, results, notes }, null, 2)}\n`);
  console.log(`\n${md}`);
  if (WRITE_RESULTS) {
    const out = path.join(HERE, 'RESULTS.md');
    fs.writeFileSync(out, md);
    // the repository's Biome formats Markdown too (`npm run check` would fail on the raw tables)
    try {
      execFileSync(path.join(ROOT, 'node_modules', '.bin', 'biome'), ['format', '--write', out], {
        cwd: ROOT,
        stdio: 'ignore',
      });
    } catch (e) {
      log(`biome format ${out} failed (${e.message.split('\n')[0]}): run npx biome check --write bench`);
    }
    log(`wrote ${out}`);
  }
  log(`raw results: ${path.join(WORK, 'results.json')}; server logs: ${LOG_DIR}`);
  console.log(`\n${summaryLines(results).join('\n')}`);
  const failed = results.some((r) => r.error || r.after_ok === false || r.errors || r.timeouts || r.non2xx);
  await cleanupAndExit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  cleanupAndExit(1);
});
