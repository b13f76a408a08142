// Driving the load (wrk when installed, else autocannon) and measuring one server under it: req/s,
// latency, and server CPU per answered request; runPair interleaves node-http and Mockyard.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cpuTicks, LOADGEN, PIN, pausePids, procStat, resumePids, rssMB, sysBusyTicks, waitQuiet } from './procs.mjs';
import { SCENARIOS } from './scenarios.mjs';
import {
  autocannon,
  CLK_TCK,
  CONNECTIONS,
  DURATION,
  HOST,
  LOADGEN_CPUS,
  log,
  REWARM,
  RUNS,
  WARMUP,
} from './settings.mjs';

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
    if (sc.sessions) {
      const prefix = `p${Math.random().toString(36).slice(2, 8)}-${i}-`;
      t.sessionPrefixes = [...(t.sessionPrefixes ?? []), prefix];
      let n = 0;
      opts.requests = [
        {
          method: sc.method || 'GET',
          path: `${t.prefix}${sc.path}`,
          headers: sc.headers || {},
          body: sc.body,
          setupRequest: (req) => ({
            ...req,
            headers: { ...req.headers, 'x-mockyard-session': `${prefix}${n++ % sc.sessions}` },
          }),
        },
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
  if (sc.sessions) {
    // S8: the creates spread over sc.sessions mock sessions, named anew for each run
    const prefix = `p${Math.random().toString(36).slice(2, 8)}-`;
    t.sessionPrefixes = [...(t.sessionPrefixes ?? []), prefix];
    lines.push(
      'local n = 0',
      `request = function() n = n + 1; wrk.headers["x-mockyard-session"] = ${q(prefix)} .. (n % ${sc.sessions}); return wrk.format() end`,
    );
  }
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
async function load(t, sc, duration) {
  const r = await (LOADGEN === 'wrk' ? wrk(t, sc, duration) : cannon(t, sc, duration));
  // S8: what the creates were answered, for the count after the run (scenarios.mjs)
  if (sc.sessions) {
    t.created = (t.created ?? 0) + r.req_total - r.non2xx;
    t.loadFailures = (t.loadFailures ?? 0) + r.errors + r.timeouts;
  }
  return r;
}

async function measure(t, sc) {
  const c0 = cpuTicks(t.pids);
  const l0 = process.cpuUsage();
  const w0 = process.hrtime.bigint();
  const b0 = sysBusyTicks();
  // S9: work on the same process while it answers the load (a large import), stopped after it
  const during = sc.during && t.kind === 'mockyard' ? sc.during(t) : null;
  const { loadgen_ticks, ...r } = await load(t, sc, DURATION);
  // every figure is read over the load's window: the server's CPU then (S9: the answers and the
  // part of the import that ran beside them) divided by the answers of that window
  const wall = Number(process.hrtime.bigint() - w0) / 1e9;
  const lg = process.cpuUsage(l0);
  const c1 = cpuTicks(t.pids);
  const srvTicks = c1 - c0;
  // the driver's CPU: this process (autocannon runs in it) plus wrk's own ticks when wrk drives
  const lgTicks = ((lg.user + lg.system) / 1e6) * CLK_TCK + (loadgen_ticks ?? 0);
  const otherTicks = sysBusyTicks() - b0 - srvTicks - lgTicks;
  // S9: the import in flight is finished and the imported projects deleted after the window, with
  // no answers to divide by; the notes say how much CPU that took
  if (during) {
    const text = await during.stop();
    const after = (cpuTicks(t.pids) - c1) / CLK_TCK;
    r.during = `${text}; after the load, ${after.toFixed(2)} s of server CPU finished the import in flight and deleted the imported projects (not in the CPU per request)`;
  }
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
        else if (i > 0 && REWARM > 0) await load(t, sc, REWARM);
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

export { runPair };
