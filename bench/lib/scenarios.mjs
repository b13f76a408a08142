// The scenarios S1-S9 and their PostgreSQL variants: the endpoint each sets up, its load, its checks.
import { randomBytes } from 'node:crypto';
import { bigDescription } from '../big-description.mjs';
import { eachBody, GQL_BODY, ITEMS, NEW_ITEM_BODY, STORE_BODY, TIER_BODY } from '../bodies.mjs';
import { MOCKS, seqDef, step } from '../definitions.mjs';
import { checkFreshSeq, checkSeqExact, checkStatic, storageLast, UUID_RE } from './checks.mjs';
import { api, createProject, get, isJsonCt } from './http.mjs';
import { CONNECTIONS, HOST, S6_ENDPOINTS, S6_PROJECTS, sleep } from './settings.mjs';

let s5Counter = 0;
const SCENARIOS = {
  S1: {
    title: 'static default response',
    ...MOCKS.S1,
    verify: (t) => checkStatic(t, '/api/users'),
  },
  S2: {
    title: 'two rules, x-tier: vip',
    ...MOCKS.S2,
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
    ...MOCKS.S3,
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
    ...MOCKS.S4,
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
        text: `storage after the load: last=${JSON.stringify(during)} (${s5Counter ? `of ${s5Counter} values sent` : 'each wrk run sends ?v=1, 2, 3, … (its Lua counter)'}); one more write -> ${JSON.stringify(last)}${ok ? '' : ` — FAILED (expected ${v})`}`,
      };
    },
  },
  S3b: {
    title: 'templated body: #each over 50 items with helpers',
    ...MOCKS.S3b,
    async verify(t) {
      const r = await get(t.ports[0], `${t.prefix}/api/each?name=Ada`);
      if (r.status !== 200 || !isJsonCt(r.ct) || r.body !== eachBody('Ada'))
        return `GET /api/each -> ${r.status} ${r.ct} ${r.body.slice(0, 200)}`;
      return null;
    },
  },
  S11: {
    title: 'GraphQL: a generated answer to a 3-level query of 20 fields',
    ...MOCKS.S11,
    async verify(t) {
      const r = await fetch(`http://${HOST}:${t.ports[0]}${t.prefix}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: GQL_BODY,
      });
      const j = await r.json().catch(() => null);
      const u = j?.data?.user;
      if (r.status !== 200 || !u || typeof u.company?.address?.zip !== 'string' || Object.keys(u).length !== 12)
        return `POST /graphql -> ${r.status} ${JSON.stringify(j).slice(0, 200)}`;
      return null;
    },
  },
  S10: {
    title: 'S1 with a contract, enforce, valid requests',
    ...MOCKS.S10,
    async verify(t) {
      const ok = await checkStatic(t, '/api/users?limit=10');
      if (ok !== null || t.kind !== 'mockyard') return ok;
      // the contract is on: an invalid request is refused before the mock runs
      const bad = await get(t.ports[0], `${t.prefix}/api/users?limit=abc`);
      return bad.status === 400 ? null : `GET /api/users?limit=abc -> ${bad.status}, expected 400 (enforce)`;
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
    // a session holds at most 10,000 items (docs/limits.md): the creates are spread over this many
    // mock sessions (X-Mockyard-Session), named anew for each measured period
    sessions: 50,
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
    // exact: every create answered is stored once, under an id of its own (warm-up and measured runs)
    async after(t) {
      if (t.kind !== 'mockyard' || !t.sessionPrefixes) return null;
      const ids = new Set();
      let items = 0;
      for (const prefix of t.sessionPrefixes)
        for (let k = 0; k < this.sessions; k++) {
          const p = `/api/projects/${encodeURIComponent(t.projectId)}/collections/new-items/items?session=${encodeURIComponent(prefix + k)}`;
          const r = await api(t.ports[0], 'GET', p, undefined, t.token, 200);
          for (const it of r.json) {
            items++;
            ids.add(it.id);
          }
        }
      // the load generator stops with up to one request in flight per connection, created but not counted
      const inFlight = t.sessionPrefixes.length * CONNECTIONS;
      const ok = items >= t.created && items - t.created <= inFlight && ids.size === items && t.loadFailures === 0;
      return {
        ok,
        text:
          `exactness: ${t.created} creates answered 201 over ${t.sessionPrefixes.length} load(s) of ${this.sessions} sessions; ` +
          `${items} items stored (${items - t.created} more: requests in flight when a load stopped, at most ${inFlight}), ${ids.size} distinct ids` +
          (t.loadFailures ? `; ${t.loadFailures} requests failed or timed out (their creates may be stored)` : '') +
          (ok ? '' : ' — NOT EXACT'),
      };
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

export { SCENARIOS };
