/**
 * Makes the served project equal to the mock files (first load and every `--watch` reload) while
 * keeping what did not change: an endpoint whose fields are the same is not touched, and a rule
 * whose content is unchanged keeps its id and its sequence position wherever it moved in the file
 * (docs/testing.md). A rule that changed is updated in place (its sequence restarts only if its
 * response changed); rules, endpoints and collections the files no longer have are removed. Seeds
 * are checked as imports check them; a seed or stored value changed in the file is applied, and a seed
 * item without an id keeps the id generated for it at the last load while it is unchanged.
 */
import { isDeepStrictEqual } from 'node:util';
import { keepGeneratedIds } from '../domain/collections.js';
import { DEFAULT_MODES, sameModes } from '../domain/contract.js';
import type { Endpoint, RuleRecord } from '../domain/model.js';
import { routeKey } from '../domain/paths.js';
import { type RuleInput, ruleFields } from '../domain/validate.js';
import { attachContract, check } from '../interop/apply.js';
import type { Converted, ImportWarning, Skipped } from '../interop/types.js';
import type { Store } from '../store/index.js';

/** What the files said last time: stored values are applied again only when the files change them. */
export interface SyncState {
  projectStorage: [string, string][];
  endpointStorage: Map<string, [string, string][]>;
  /** the contract's JSON text as last attached (null: none) */
  contract: string | null;
}

export interface SyncReport {
  state: SyncState;
  created: number;
  updated: number;
  removed: number;
  unchanged: number;
  skipped: Skipped[];
  warnings: ImportWarning[];
}

const endpointFields = (
  e: Pick<Endpoint, 'statusCode' | 'responseBody' | 'contentType' | 'data' | 'headers'> &
    Partial<Pick<Endpoint, 'channels' | 'validation' | 'graphql'>>,
) => ({
  statusCode: e.statusCode,
  responseBody: e.responseBody,
  contentType: e.contentType,
  data: e.data ?? null,
  headers: e.headers ?? {},
  channels: e.channels ?? [],
  validation: e.validation ?? null,
  graphql: e.graphql ?? null,
});

/**
 * The endpoint's rules made equal to `next`, in its order (by priority, then as listed): rules are
 * first paired by content, then by name, then in order. When the pairing would leave equal-priority
 * rules in another order than the file's (the store orders ties by creation), the rules are paired
 * by position instead. True when anything was written.
 */
async function syncRules(
  store: Store,
  ownerId: string,
  projectId: string,
  endpointId: string,
  drafts: RuleInput[],
  rulesPerEndpoint: number,
): Promise<boolean> {
  const old = await store.rules.list(ownerId, projectId, endpointId);
  const next = drafts
    .map((r, i) => ({ r, i }))
    .sort((a, b) => a.r.priority - b.r.priority || a.i - b.i)
    .map((x) => x.r);
  const same = (a: RuleInput | RuleRecord, b: RuleInput) => isDeepStrictEqual(ruleFields(a), ruleFields(b));
  // pairing: next[i] ↔ old index (or -1: created)
  const free = new Set(old.map((_, i) => i));
  const pair = next.map((n) => {
    const i = old.findIndex((o, j) => free.has(j) && same(o, n));
    if (i >= 0) free.delete(i);
    return i;
  });
  next.forEach((n, k) => {
    if (pair[k] >= 0) return;
    const byName = old.findIndex((o, j) => free.has(j) && o.name === n.name);
    const i = byName >= 0 ? byName : ([...free][0] ?? -1);
    if (i >= 0) free.delete(i);
    pair[k] = i;
  });
  // the store's order after the writes: priority, then creation (paired rules keep theirs)
  const order = next
    .map((n, k) => ({ k, p: n.priority, seq: pair[k] >= 0 ? pair[k] : old.length + k }))
    .sort((a, b) => a.p - b.p || a.seq - b.seq)
    .map((x) => x.k);
  if (order.some((k, i) => k !== i))
    next.forEach((_, k) => {
      pair[k] = k < old.length ? k : -1;
    });
  let wrote = false;
  const used = new Set(pair.filter((i) => i >= 0));
  for (const [k, n] of next.entries()) {
    const was = pair[k] >= 0 ? old[pair[k]] : undefined;
    if (was && same(was, n)) continue;
    wrote = true;
    if (was)
      await store.rules.update(ownerId, projectId, endpointId, was.id, n, !isDeepStrictEqual(was.response, n.response));
    else await store.rules.create(ownerId, projectId, endpointId, n, rulesPerEndpoint);
  }
  for (const [i, was] of old.entries())
    if (!used.has(i)) {
      wrote = true;
      await store.rules.delete(ownerId, projectId, endpointId, was.id);
    }
  return wrote;
}

/** Seeds checked as imports check them: a bad one is a warning and an empty collection. */
export async function syncProject(
  store: Store,
  ownerId: string,
  projectId: string,
  conv: Converted,
  rulesPerEndpoint: number,
  was: SyncState | null = null,
): Promise<SyncReport> {
  const now: SyncState = { projectStorage: [], endpointStorage: new Map(), contract: conv.contractJson ?? null };
  const report: SyncReport = {
    state: now,
    created: 0,
    updated: 0,
    removed: 0,
    unchanged: 0,
    skipped: [...conv.skipped],
    warnings: [...conv.warnings],
  };
  // items without an id keep the ids the last load generated for them, so an unchanged seed stays unchanged
  const current = new Map((await store.collections.list(ownerId, projectId)).map((c) => [c.name, c]));
  const collections = conv.collections.map((c) => {
    const had = current.get(c.name);
    return had?.idField === c.idField ? { ...c, seed: keepGeneratedIds(c.seed, had.seed, c.idField) } : c;
  });
  const checked = check({ ...conv, collections }, rulesPerEndpoint, report);
  now.projectStorage = checked.projectStorage;

  const project = await store.projects.require(ownerId, projectId);
  const fallbackUrl = conv.fallbackUrl ?? null;
  if (project.fallbackUrl !== fallbackUrl) await store.projects.update(ownerId, projectId, { fallbackUrl });
  const config = conv.config ?? {};
  if (JSON.stringify(project.config) !== JSON.stringify(config))
    await store.projects.update(ownerId, projectId, { config });
  // the file's validation modes and contract (docs/contract.md); a contract is loaded again only when it
  // changed, and one that cannot be attached is tried again at the next reload (a warning each time)
  const validation = conv.validation ?? DEFAULT_MODES;
  if (!sameModes(project.validation, validation)) await store.projects.update(ownerId, projectId, { validation });
  const before = was?.contract ?? null;
  if (now.contract !== before) {
    if (now.contract === null) await store.contracts.delete(ownerId, projectId);
    else if (!(await attachContract(store, ownerId, project, now.contract, { onConflict: 'replace' }, report)))
      now.contract = before;
  }

  const shared = checked.projectStorage;
  if (was === null ? shared.length > 0 : !isDeepStrictEqual(was.projectStorage, shared))
    await store.hot.updateStorage({ kind: 'project', id: projectId }, '', () => shared);

  for (const c of checked.collections) {
    const had = current.get(c.name);
    current.delete(c.name);
    const seed = c.seed;
    if (!had) await store.collections.create(ownerId, projectId, c.name, { idField: c.idField, seed });
    else if (had.idField !== c.idField || !isDeepStrictEqual(had.seed, seed))
      await store.collections.update(ownerId, projectId, c.name, { idField: c.idField, seed });
  }
  for (const name of current.keys()) await store.collections.delete(ownerId, projectId, name);

  const existing = new Map<string, Endpoint>();
  for (const e of await store.endpoints.list(ownerId, projectId)) existing.set(`${e.method} ${routeKey(e.path)}`, e);
  for (const d of checked.endpoints) {
    const key = `${d.input.method} ${d.input.routeKey}`;
    let endpoint = existing.get(key);
    existing.delete(key);
    let state: 'created' | 'updated' | 'unchanged' = endpoint ? 'unchanged' : 'created';
    const touch = () => {
      if (state === 'unchanged') state = 'updated';
    };
    if (!endpoint) {
      endpoint = await store.endpoints.create(ownerId, projectId, d.input);
      if (d.storage.length > 0)
        await store.hot.updateStorage({ kind: 'endpoint', id: endpoint.id }, '', () => d.storage);
    } else if (
      endpoint.path !== d.input.path ||
      !isDeepStrictEqual(endpointFields(endpoint), endpointFields(d.input))
    ) {
      endpoint = await store.endpoints.update(ownerId, projectId, endpoint.id, d.input);
      touch();
    }
    if (await syncRules(store, ownerId, projectId, endpoint.id, d.rules, rulesPerEndpoint)) touch();
    // a stored value changed in the file is applied (the values mock traffic wrote are replaced)
    const before = was?.endpointStorage.get(key);
    if (before !== undefined && !isDeepStrictEqual(before, d.storage))
      await store.hot.updateStorage({ kind: 'endpoint', id: endpoint.id }, '', () => d.storage);
    now.endpointStorage.set(key, d.storage);
    report[state]++;
  }
  for (const gone of existing.values()) {
    await store.endpoints.delete(ownerId, projectId, gone.id);
    report.removed++;
  }
  return report;
}
