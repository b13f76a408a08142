// Server processes: CPU pinning and nice values, start and stop (each in its own process group, tracked
// by pid), pausing the idle server, and CPU, RSS and quiet-machine readings from /proc.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  CLK_TCK,
  env,
  HOST,
  LOADGEN_CPUS,
  LOG_DIR,
  log,
  NICE,
  QUIET_MAX_PCT,
  QUIET_TIMEOUT_S,
  ROOT,
  round1,
  SERVER_CPUS,
  sleep,
} from './settings.mjs';
import { procStat } from './standalone.mjs';

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

export {
  children,
  cpuTicks,
  killAllSync,
  LOADGEN,
  logTail,
  PIN,
  pausePids,
  portInUse,
  procStat,
  resumePids,
  rssMB,
  snapshotTree,
  startProc,
  stopProc,
  sysBusyTicks,
  waitQuiet,
};
