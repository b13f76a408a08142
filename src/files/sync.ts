/**
 * Makes the served project equal to the mock files (first load and every `--watch` reload) while
 * keeping what did not change: an endpoint whose fields are the same is not touched, and a rule
 * equal to the one at its position keeps its id and its sequence position (docs/testing.md). A rule
 * that changed is updated in place (its sequence restarts only if its response changed); rules,
 * endpoints and collections the files no longer have are removed.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Endpoint, RuleRecord } from '../domain/model.js';
import { routeKey } from '../domain/paths.js';
import type { RuleInput } from '../domain/validate.js';
import { check } from '../interop/apply.js';
import type { Converted, ImportWarning, Skipped } from '../interop/types.js';
import type { Store } from '../store/index.js';

export interface SyncReport {
  created: number;
  updated: number;
  removed: number;
  unchanged: number;
  skipped: Skipped[];
  warnings: ImportWarning[];
}

const ruleFields = (r: RuleInput | RuleRecord): RuleInput => ({
  name: r.name,
  priority: r.priority,
  active: r.active,
  conditions: r.conditions,
  response: r.response,
  actions: r.actions,
  ...(r.on ? { on: r.on } : {}),
});

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

export async function syncProject(
  store: Store,
  ownerId: string,
  projectId: string,
  conv: Converted,
  rulesPerEndpoint: number,
): Promise<SyncReport> {
  const report: SyncReport = {
    created: 0,
    updated: 0,
    removed: 0,
    unchanged: 0,
    skipped: [...conv.skipped],
    warnings: [...conv.warnings],
  };
  const drafts = check(conv, rulesPerEndpoint, report);

  const project = await store.projects.require(ownerId, projectId);
  const fallbackUrl = conv.fallbackUrl ?? null;
  if (project.fallbackUrl !== fallbackUrl) await store.projects.update(ownerId, projectId, { fallbackUrl });
  const config = conv.config ?? {};
  if (JSON.stringify(project.config) !== JSON.stringify(config))
    await store.projects.update(ownerId, projectId, { config });

  const current = new Map((await store.collections.list(ownerId, projectId)).map((c) => [c.name, c]));
  for (const c of conv.collections) {
    const had = current.get(c.name);
    current.delete(c.name);
    if (!had) await store.collections.create(ownerId, projectId, c.name, { idField: c.idField, seed: c.seed });
    else if (had.idField !== c.idField || !isDeepStrictEqual(had.seed, c.seed))
      await store.collections.update(ownerId, projectId, c.name, { idField: c.idField, seed: c.seed });
  }
  for (const name of current.keys()) await store.collections.delete(ownerId, projectId, name);

  const existing = new Map<string, Endpoint>();
  for (const e of await store.endpoints.list(ownerId, projectId)) existing.set(`${e.method} ${routeKey(e.path)}`, e);
  const seen = new Set<string>();
  for (const d of drafts) {
    const key = `${d.input.method} ${d.input.routeKey}`;
    if (seen.has(key)) continue;
    seen.add(key);
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
    const old = await store.rules.list(ownerId, projectId, endpoint.id);
    for (let i = 0; i < Math.max(old.length, d.rules.length); i++) {
      const was = old[i];
      const next = d.rules[i];
      if (was && next) {
        if (isDeepStrictEqual(ruleFields(was), ruleFields(next))) continue;
        const resetSequence = !isDeepStrictEqual(was.response, next.response);
        await store.rules.update(ownerId, projectId, endpoint.id, was.id, next, resetSequence);
      } else if (next) await store.rules.create(ownerId, projectId, endpoint.id, next, rulesPerEndpoint);
      else if (was) await store.rules.delete(ownerId, projectId, endpoint.id, was.id);
      touch();
    }
    report[state]++;
  }
  for (const gone of existing.values()) {
    await store.endpoints.delete(ownerId, projectId, gone.id);
    report.removed++;
  }
  return report;
}
