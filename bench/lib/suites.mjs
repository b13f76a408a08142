// The Mockyard runs: the SQLite process (S1-S9, S6's 10,000-endpoint setup) and two processes on one fresh
// PostgreSQL database (the -pg scenarios).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { api, createEndpoint, createProject, pool, register } from './http.mjs';
import { runPair } from './load.mjs';
import { PIN, rssMB, stopProc } from './procs.mjs';
import { SCENARIOS } from './scenarios.mjs';
import { mockyardStartProblem, serverLogNote, startMockyard } from './servers.mjs';
import {
  ALL_IDS,
  CONNECTIONS,
  IDLE_S,
  KEEP_TMP,
  LOG_DIR,
  log,
  MOCKYARD_PORT,
  PG_URL,
  RSS_DUMP,
  redact,
  requireFromRoot,
  round1,
  S6_ENDPOINTS,
  S6_PROJECTS,
  SERVER_CPUS,
  SETUP_CONCURRENCY,
  sleep,
  WORK,
} from './settings.mjs';

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

/**
 * RSS_DUMP=<prefix>: what the RSS after S6 is made of — each server's /proc/<pid>/smaps saved as
 * `<prefix>-<pid>.txt`, and a V8 heap snapshot when its node flags ask for one by signal
 * (`MOCKYARD_NODE_FLAGS=--heapsnapshot-signal=SIGUSR2`: node writes it in the server's directory).
 */
function dumpRss(pids) {
  const heap = (process.env.MOCKYARD_NODE_FLAGS ?? '').includes('--heapsnapshot-signal=SIGUSR2');
  for (const p of pids) {
    fs.writeFileSync(`${RSS_DUMP}-${p}.txt`, fs.readFileSync(`/proc/${p}/smaps`));
    if (heap) process.kill(p, 'SIGUSR2');
  }
  log(`RSS_DUMP: smaps saved as ${RSS_DUMP}-<pid>.txt${heap ? ', heap snapshot asked for' : ''}`);
}

/**
 * The RSS of `pids` after IDLE_S seconds without traffic: the lowest reading of one a second (V8's
 * memory reducer shrinks the heap once, at a moment of its choosing, 10 to 40 s into the quiet).
 */
async function idleRss(pids) {
  log(`idle RSS: ${IDLE_S} s without traffic...`);
  let low = rssMB(pids);
  for (let s = 0; s < IDLE_S; s++) {
    await sleep(1000);
    low = Math.min(low, rssMB(pids));
  }
  return low;
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
        const def = SCENARIOS[id].def;
        // a scenario with a contract gets a project of its own: the others stay unvalidated
        const pid = def.ownProject ? await createProject(port, token, `bench-${id}`) : projectId;
        infos[id] = { ...(await createEndpoint(port, token, pid, def)), projectId: pid };
      } catch (e) {
        infos[id] = { error: `setup failed: ${e.message}` };
        log(`mockyard ${id}: ${infos[id].error}`);
      }
    }
    await sleep(300);
    const afterSetup = rssMB(pids);
    if (IDLE_S > 0) meta.idle_rss_mb = await idleRss(pids);
    notes.push(
      `mockyard (SQLite): healthy ${proc.ms} ms after start; RSS after the small setup (the selected scenarios' endpoints, collections, contract and GraphQL schema created) ${afterSetup} MB` +
        (IDLE_S > 0 ? `, ${meta.idle_rss_mb} MB after ${IDLE_S} s without traffic (idle RSS)` : ''),
    );
    const base = { label, kind: 'mockyard', ports: [port, port], pids, token };
    const runOne = (id) => {
      const my = infos[id].error
        ? { label, error: infos[id].error }
        : {
            ...base,
            prefix: `/m/${encodeURIComponent(infos[id].projectId)}`,
            info: infos[id],
            projectId: infos[id].projectId,
          };
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
        if (RSS_DUMP) dumpRss(pids);
        const idle = IDLE_S > 0 ? await idleRss(pids) : null;
        notes.push(
          `${s6.text}. Mockyard RSS: ${rssBefore} MB before the S6 setup, ${rssAfterSetup} MB after it, ` +
            `${meta.rss_after_s6_mb} MB after the S6 load` +
            (idle === null ? '' : `, ${idle} MB ${IDLE_S} s later without traffic`),
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
    await sleep(1200); // a management change reaches every other process within 1 s (docs/api.md "Mock traffic")
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

export { benchMockyard, benchPg, pgDrop };
