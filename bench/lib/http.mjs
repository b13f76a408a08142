// HTTP helpers of the harness: plain requests, the management API (register, project, endpoint), health
// waits and a bounded pool.
import { randomBytes } from 'node:crypto';
import { logTail, snapshotTree } from './procs.mjs';
import { HOST, START_TIMEOUT_S, sleep } from './settings.mjs';

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
  if (def.contract)
    await api(port, 'PUT', `/api/projects/${encodeURIComponent(projectId)}/contract`, def.contract, token, 200);
  if (def.validation)
    await api(
      port,
      'PATCH',
      `/api/projects/${encodeURIComponent(projectId)}`,
      { validation: def.validation },
      token,
      200,
    );
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
export { api, createEndpoint, createProject, get, isJsonCt, pool, register, waitHealthy };
