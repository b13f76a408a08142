// bench/RESULTS.md: the run's metadata, the table, checks and notes, and the summary lines.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { LOADGEN, PIN } from './procs.mjs';
import { SCENARIOS } from './scenarios.mjs';
import { MOCKYARD_DIR } from './servers.mjs';
import {
  CONNECTIONS,
  DURATION,
  env,
  HOST,
  LOADGEN_CPUS,
  MOCKYARD_REF,
  NICE,
  QUIET_MAX_PCT,
  ROOT,
  RUNS,
  redact,
  SELECTED,
  SERVER_CPUS,
  WARMUP,
} from './settings.mjs';

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
  L.push('', '```', ...summaryLines(results, meta), '```', '');
  return L.join('\n');
}
function summaryLines(results, meta) {
  const r = ratios(results);
  const lines = [];
  if (meta.idle_rss_mb !== undefined) lines.push(`mockyard idle RSS = ${meta.idle_rss_mb} MB (goal ≤ 100)`);
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

export { commandLine, cpuModel, gitRev, markdown, summaryLines, wrkVersion };
