// The checks behind the scenarios: equivalent answers before the load, exact sequences and storage after it.
import { SEQ_BODIES, USERS_BODY } from '../bodies.mjs';
import { api, get, isJsonCt } from './http.mjs';
import { autocannon, CONNECTIONS, EXACT_N, HOST, sleep } from './settings.mjs';

// ---------- scenarios ----------
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const nOf = (body) => /^\{"n":([123])\}$/.exec(body)?.[1];

// t (a target) = { kind: 'node-http' | 'mockyard', ports: [port, …], prefix, pids, info: {endpointId, ruleId, …},
// token, projectId }. With two ports the load is split over both (two autocannon instances at once).
async function checkStatic(t, p) {
  const r = await get(t.ports[0], `${t.prefix}${p}`);
  if (r.status !== 200 || !isJsonCt(r.ct) || r.body !== USERS_BODY)
    return `GET ${p} -> ${r.status} ${r.ct} ${r.body.slice(0, 200)}`;
  if (r.acao !== '*') return `GET ${p}: no Access-Control-Allow-Origin: * (got ${r.acao})`;
  // the contract's sandbox on every mock answer (SECURITY.md): node-http sends it too, the same bytes
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

export { checkFreshSeq, checkSeqExact, checkStatic, storageLast, UUID_RE };
