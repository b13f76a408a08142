// The servers measured: the bare node:http reference and Mockyard (this checkout, or a built snapshot of
// MOCKYARD_REF), started with the flags and environment of `npm start`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { waitHealthy } from './http.mjs';
import { logTail, portInUse, startProc, stopProc } from './procs.mjs';
import { HERE, HOST, LOG_DIR, log, MOCKYARD_REF, NODE_HTTP_PORT, ROOT, sleep, WORK } from './settings.mjs';
import { npmStart } from './standalone.mjs';

// The Mockyard checkout to start (default: this one). With MOCKYARD_REF, a snapshot of that git ref of this
// repository is extracted and built in the run's temp dir instead, so the work tree (and its dist/) is not
// touched: for benchmarking while the tree is being edited.
let MOCKYARD_DIR = path.resolve(process.env.MOCKYARD_DIR || ROOT);
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
// Extracts MOCKYARD_REF into WORK/snapshot (node_modules linked from this checkout) and builds it there;
// what went wrong, or null. When it failed, Mockyard is not available in this run (mockyardStartProblem).
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
    snapshotError = `snapshot of ${MOCKYARD_REF} did not build (see notes)`;
    return `snapshot of ${MOCKYARD_REF} failed (${e.message.split('\n')[0]}); log: ${logTail(logFile)}`;
  } finally {
    fs.closeSync(fd);
  }
  MOCKYARD_DIR = dir;
  return null;
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
  const start = npmStart(MOCKYARD_DIR);
  // MOCKYARD_NODE_FLAGS: node flags added to npm start's, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
  const extra = (process.env.MOCKYARD_NODE_FLAGS || '').split(/\s+/).filter(Boolean);
  const script = path.join(MOCKYARD_DIR, 'scripts', 'start.mjs');
  const child = startProc(name, process.execPath, [...start.flags, ...extra, script], {
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

export { MOCKYARD_DIR, mockyardStartProblem, prepareSnapshot, serverLogNote, startMockyard, startNodeHttp };
