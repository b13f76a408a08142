// Benchmark settings from the environment (documented at the top of bench/run.mjs), the run's temp
// directory and log helpers.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** bench/ (this file is in bench/lib/) */
const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = path.resolve(HERE, '..');
const requireFromRoot = createRequire(path.join(ROOT, 'package.json'));
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
// seconds of load before each later measured period: a server continued after SIGSTOP (runPair) first runs
// the timers that fell due while it was stopped (the request log's flush, V8's memory reducer, …)
const REWARM = num('REWARM', 1);
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
// seconds without traffic over which the idle RSS is read (V8's memory reducer gives the young
// generation back 10-40 s into the quiet); 0 skips the reading
const IDLE_S = num('IDLE_S', 60, { min: 0 });
const KEEP_TMP = env.KEEP_TMP === '1';
// a path prefix: what the RSS after S6 is made of is saved there (suites.mjs, dumpRss)
const RSS_DUMP = env.RSS_DUMP || '';
const PG_URL = env.PG_URL || env.TEST_DATABASE_URL || '';
const SERVER_CPUS = env.SERVER_CPUS || '1';
// Scheduling priority of the servers and the driver (nice value, -20..19; negative needs root): on a shared
// machine, NICE=-10 gives the benchmark precedence over other work on the same CPUs. Unset: unchanged.
const NICE = env.NICE ? num('NICE', 0, { min: -20, int: true }) : null;
const LOADGEN_CPUS = env.LOADGEN_CPUS || '0';

const ALL_IDS = [
  'S1',
  'S2',
  'S3',
  'S3b',
  'S4',
  'S5',
  'S6',
  'S7',
  'S8',
  'S9',
  'S10',
  'S11',
  'S1-pg',
  'S4-pg',
  'S5-pg',
  'S8-pg',
];
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

/** A URL with its password masked, for logs and RESULTS.md. */
function redact(u) {
  try {
    const x = new URL(u);
    if (x.password) x.password = '***';
    return x.toString();
  } catch {
    return '(unparsable URL)';
  }
}

export {
  ALL_IDS,
  autocannon,
  CLK_TCK,
  CONNECTIONS,
  DURATION,
  EXACT_N,
  env,
  HERE,
  HOST,
  IDLE_S,
  isPg,
  KEEP_TMP,
  LOADGEN_CPUS,
  LOG_DIR,
  log,
  MAX_TOTAL_S,
  MOCKYARD_PORT,
  MOCKYARD_REF,
  NICE,
  NODE_HTTP_PORT,
  PG_URL,
  QUIET_MAX_PCT,
  QUIET_TIMEOUT_S,
  REWARM,
  ROOT,
  RSS_DUMP,
  RUNS,
  redact,
  requireFromRoot,
  round1,
  S6_ENDPOINTS,
  S6_PROJECTS,
  SELECTED,
  SERVER_CPUS,
  SETUP_CONCURRENCY,
  START_TIMEOUT_S,
  sleep,
  WARMUP,
  WORK,
  WRITE_RESULTS,
};
