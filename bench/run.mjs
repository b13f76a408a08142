// Mockyard benchmark harness (`npm run bench`). Measures Mockyard's mock traffic against a bare node:http
// server answering the same bytes, in the same run, one server at a time on 127.0.0.1, with the server
// pinned to CPU 1 (`taskset -c 1`) and the load generator (wrk, one thread, when installed; else
// autocannon in this process) pinned to CPU 0. Method copied from the shared peer harness (shared/bench):
// answers are checked for equivalence before any load, then a warm-up, then the measured period(s). See
// bench/README.md. This file runs it; bench/lib/ holds the parts: settings (this environment), procs
// (server processes, /proc readings), http (requests, the management API), scenarios and checks, load
// (wrk/autocannon, measuring, runPair), servers (node-http, Mockyard, snapshots), suites (the SQLite and
// PostgreSQL runs), report (RESULTS.md).
//
// Environment (all optional):
//   SCENARIOS=S1,S4        subset of S1 … S9, S1-pg, S4-pg, S5-pg, S8-pg (default: S1-S9, plus the -pg ones when PG_URL is set)
//   CONNECTIONS=50 WARMUP=5 DURATION=10 RUNS=1   (RUNS>1: the median run by req/s is reported)
//   PIN=1                  0 = no CPU pinning; SERVER_CPUS=1 LOADGEN_CPUS=0 choose the CPUs
//   PG_URL | TEST_DATABASE_URL   a PostgreSQL URL: enables S1-pg and S4-pg (a fresh database is created and dropped)
//   WRITE_RESULTS=1        write bench/RESULTS.md (default 1 for a full run, 0 when SCENARIOS narrows it)
//   NODE_HTTP_PORT=18180 MOCKYARD_PORT=18190 (S4-pg uses MOCKYARD_PORT and MOCKYARD_PORT+1)
//   MOCKYARD_DIR=<this checkout> MOCKYARD_REF=<git ref: benchmark a built snapshot of it> MOCKYARD_START_TIMEOUT_S=300 S6_PROJECTS=1000 S6_ENDPOINTS=10000 SETUP_CONCURRENCY=20 EXACT_N=3000
//   QUIET_MAX_PCT=15 QUIET_TIMEOUT_S=120 MAX_TOTAL_S=3600 KEEP_TMP=0
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { children, killAllSync, LOADGEN, PIN, stopProc } from './lib/procs.mjs';
import { commandLine, cpuModel, gitRev, markdown, summaryLines, wrkVersion } from './lib/report.mjs';
import { prepareSnapshot, startNodeHttp } from './lib/servers.mjs';
import {
  CONNECTIONS,
  DURATION,
  HERE,
  isPg,
  KEEP_TMP,
  LOG_DIR,
  log,
  MAX_TOTAL_S,
  MOCKYARD_REF,
  RUNS,
  requireFromRoot,
  round1,
  SELECTED,
  sleep,
  WARMUP,
  WORK,
  WRITE_RESULTS,
} from './lib/settings.mjs';
import { benchMockyard, benchPg, pgDrop } from './lib/suites.mjs';

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
    const failed = prepareSnapshot();
    if (failed) {
      notes.push(`mockyard: ${failed}`);
      log(failed);
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
    log(`wrote ${out}`);
  }
  log(`raw results: ${path.join(WORK, 'results.json')}; server logs: ${LOG_DIR}`);
  console.log(`\n${summaryLines(results, meta).join('\n')}`);
  const failed = results.some((r) => r.error || r.after_ok === false || r.errors || r.timeouts || r.non2xx);
  await cleanupAndExit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  cleanupAndExit(1);
});
