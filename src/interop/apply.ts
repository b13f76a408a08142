/**
 * Writes a converted document into a project (docs/interop.md): every endpoint and rule is checked as
 * the API would check it (a draft that fails is skipped or dropped with a warning, never half
 * written), routes already in the project follow `onConflict` (`fail`: 409 and nothing written,
 * `skip`, or `replace`: the endpoint's fields and rules are the document's), collections likewise,
 * and rules past the plan's limit are warnings. Writes go one endpoint at a time, yielding to the
 * event loop every 5 ms so that mock traffic on the same process keeps flowing (docs/interop.md).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { checkSeed } from '../domain/collections.js';
import { planFor, RULE_LIMITS } from '../domain/constants.js';
import { DEFAULT_MODES, sameModes } from '../domain/contract.js';
import { AppError, type ErrorDetail } from '../domain/errors.js';
import type { Endpoint, ImportReport, Project } from '../domain/model.js';
import { routeKey } from '../domain/paths.js';
import { capStorage, DEFAULT_STORAGE_CAPS, type StorageCaps } from '../domain/storage-caps.js';
import {
  type EndpointInput,
  type RuleInput,
  validateEndpoint,
  validateProject,
  validateRule,
} from '../domain/validate.js';
import type { Store } from '../store/index.js';
import { loadContract } from './contract-load.js';
import type { Converted } from './types.js';

export type OnConflict = 'fail' | 'skip' | 'replace';

export type { ImportReport };

export interface ApplyOptions {
  onConflict: OnConflict;
  maxEndpoints: number;
  rulesPerEndpoint: number;
  /** the stored-variable caps a store_variable action obeys (defaults: docs/limits.md) */
  storage?: StorageCaps;
  /** the document as `check` already checked it (a new project's import checks before it creates) */
  checked?: CheckedDocument;
}

export interface Checked {
  input: EndpointInput;
  rules: RuleInput[];
  storage: [string, string][];
  pointer: string;
}

export interface CheckedDocument {
  endpoints: Checked[];
  collections: { name: string; idField: string; seed: Record<string, unknown>[]; pointer: string }[];
  projectStorage: [string, string][];
}

const why = (e: unknown) =>
  e instanceof AppError
    ? (e.details ?? [{ path: '', message: e.message }]).map((d) => `${d.path} ${d.message}`.trim()).join('; ')
    : String(e);

/**
 * Every draft checked as the API checks a create. Leniently (an import into a project) what fails is
 * skipped with a warning; strictly (`problems` given: a new project from an export, all or nothing)
 * each failure is a problem under the draft's pointer, the converter's warnings included, and no rule
 * is cut at the plan's limit (the caller refuses the document instead).
 */
export function check(
  conv: Converted,
  rulesPerEndpoint: number,
  report: Pick<ImportReport, 'skipped' | 'warnings'>,
  storageCaps: StorageCaps = DEFAULT_STORAGE_CAPS,
  problems?: ErrorDetail[],
): CheckedDocument {
  /** a failure at `pointer`: a problem (its details re-rooted there) or a warning */
  const fail = (pointer: string, e: unknown, warning: string) => {
    if (!problems) return report.warnings.push({ pointer, message: warning });
    if (!(e instanceof AppError) || e.code !== 'validation_failed') throw e;
    for (const d of e.details ?? [{ path: '/', message: e.message }])
      problems.push({ path: `${pointer}${d.path === '/' ? '' : d.path}`, message: d.message });
  };
  if (problems) for (const w of conv.warnings) problems.push({ path: w.pointer, message: w.message });
  const out: CheckedDocument = { endpoints: [], collections: [], projectStorage: [] };
  const routes = new Map<string, string>();
  for (const d of conv.endpoints) {
    let input: EndpointInput;
    try {
      input = validateEndpoint({
        method: d.method,
        path: d.path,
        statusCode: d.statusCode,
        responseBody: d.responseBody,
        contentType: d.contentType,
        ...(d.data ? { data: d.data } : {}),
        ...(d.headers ? { headers: d.headers } : {}),
        ...(d.channels ? { channels: d.channels } : {}),
        ...(d.graphql ? { graphql: d.graphql } : {}),
        ...(d.validation ? { validation: d.validation } : {}),
      });
    } catch (e) {
      if (!problems) report.skipped.push({ method: d.method, path: d.path, reason: why(e) });
      fail(d.pointer, e, `not imported: ${why(e)}`);
      for (const r of problems ? d.rules : []) {
        const bad = attempt(() => validateRule(ruleFields(r)));
        if (bad) fail(r.pointer, bad, '');
      }
      continue;
    }
    const rules: RuleInput[] = [];
    for (const r of d.rules) {
      if (!problems && rules.length >= rulesPerEndpoint) {
        report.warnings.push({
          pointer: r.pointer,
          message: `not imported: the plan allows ${rulesPerEndpoint} rules per endpoint (${d.method} ${d.path} has ${d.rules.length}); the ${planFor(d.rules.length)} plan allows ${RULE_LIMITS[planFor(d.rules.length)]} (MOCKYARD_DEFAULT_PLAN, or the admin API)`,
        });
        continue;
      }
      try {
        rules.push(
          validateRule(
            ruleFields(r),
            undefined,
            problems
              ? {}
              : {
                  onHeavyRegex: (at, message) =>
                    report.warnings.push({
                      pointer: r.pointer,
                      message: `rule imported inactive: ${at.slice(1)}: ${message}`,
                    }),
                },
          ),
        );
      } catch (e) {
        fail(r.pointer, e, `rule not imported: ${why(e)}`);
      }
    }
    const route = `${input.method} ${input.routeKey}`;
    const first = routes.get(route);
    if (first !== undefined) {
      if (problems)
        problems.push({
          path: `${d.pointer}/path`,
          message: `${input.method} ${input.path} is the same route as ${first}`,
        });
      else {
        report.skipped.push({
          method: input.method,
          path: input.path,
          reason: 'a second endpoint of the document on this route',
        });
        report.warnings.push({
          pointer: d.pointer,
          message: 'not imported: the same route as an earlier endpoint of the document',
        });
      }
      continue;
    }
    routes.set(route, d.pointer);
    const { kept, cut } = capStorage(d.storage ?? [], storageCaps);
    for (const c of cut) {
      const at = d.storageAt ? `${d.storageAt}/${pointerPart(c.name)}` : d.pointer;
      if (problems) problems.push({ path: at, message: c.why });
      else report.warnings.push({ pointer: at, message: `stored value ${c.name} not imported: ${c.why}` });
    }
    out.endpoints.push({ input, rules, storage: kept, pointer: d.pointer });
  }
  for (const c of conv.collections) {
    try {
      out.collections.push({ ...c, seed: checkSeed(c.seed, c.idField) });
    } catch (e) {
      fail(c.pointer, e, `seed not imported: ${why(e)}`);
      if (!problems) out.collections.push({ ...c, seed: [] });
    }
  }
  const { kept, cut } = capStorage(conv.projectStorage, storageCaps);
  for (const c of cut) {
    const at = `/projectStorage/${pointerPart(c.name)}`;
    if (problems) problems.push({ path: at, message: c.why });
    else report.warnings.push({ pointer: at, message: `stored value ${c.name} not imported: ${c.why}` });
  }
  out.projectStorage = kept;
  return out;
}

/** Endpoints created in one transaction by an import (between two chances for mock traffic). */
const CREATE_CHUNK = 50;

const pointerPart = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

function ruleFields(r: Converted['endpoints'][number]['rules'][number]): Record<string, unknown> {
  const { pointer: _p, ...fields } = r;
  return fields as unknown as Record<string, unknown>;
}

/** What `fn` throws, or null. */
function attempt(fn: () => unknown): unknown {
  try {
    fn();
    return null;
  } catch (e) {
    return e;
  }
}

export async function applyImport(
  store: Store,
  ownerId: string,
  project: Project,
  conv: Converted,
  opts: ApplyOptions,
): Promise<ImportReport> {
  const report: ImportReport = {
    format: conv.format,
    created: [],
    replaced: [],
    skipped: [...conv.skipped],
    warnings: [...conv.warnings],
  };
  const projectId = project.id;
  const checked = opts.checked ?? check(conv, opts.rulesPerEndpoint, report, opts.storage);
  const existing = new Map<string, Endpoint>();
  for (const e of await store.endpoints.list(ownerId, projectId)) existing.set(`${e.method} ${routeKey(e.path)}`, e);
  const collections = new Set((await store.collections.list(ownerId, projectId)).map((c) => c.name));
  const fresh: Checked[] = [];
  const collisions: { draft: Checked; current: Endpoint }[] = [];
  for (const d of checked.endpoints) {
    const current = existing.get(`${d.input.method} ${d.input.routeKey}`);
    if (current) collisions.push({ draft: d, current });
    else fresh.push(d);
  }
  const clashing = checked.collections.filter((c) => collections.has(c.name));
  if ((collisions.length > 0 || clashing.length > 0) && opts.onConflict === 'fail') {
    const details: ErrorDetail[] = [
      ...collisions.map(({ draft, current }) => ({
        path: draft.pointer,
        message: `${draft.input.method} ${draft.input.path} collides with endpoint ${current.id} (${current.method} ${current.path})`,
      })),
      ...clashing.map((c) => ({ path: c.pointer, message: `the project has a collection ${c.name}` })),
    ];
    throw new AppError(
      'conflict',
      `${details.length} record(s) of the document collide with the project's; nothing was created (use ?onConflict=skip or ?onConflict=replace)`,
      details,
    );
  }
  const count = existing.size + fresh.length;
  if (count > opts.maxEndpoints)
    throw new AppError(
      'limit_exceeded',
      `At most ${opts.maxEndpoints} endpoints per project; the import would make ${count}`,
    );

  for (const c of checked.collections) {
    const { idField, seed } = c;
    if (!collections.has(c.name)) await store.collections.create(ownerId, projectId, c.name, { idField, seed });
    else if (opts.onConflict === 'replace')
      await store.collections.update(ownerId, projectId, c.name, { idField, seed });
    else report.warnings.push({ pointer: c.pointer, message: `the project's collection ${c.name} is kept` });
  }
  if (checked.projectStorage.length > 0)
    await store.hot.updateStorage({ kind: 'project', id: projectId }, '', () => checked.projectStorage);
  if (conv.config && Object.keys(conv.config).length > 0) {
    try {
      const { config } = validateProject({ config: { ...conv.config, ...project.config } }, true);
      await store.projects.update(ownerId, projectId, { config });
    } catch (e) {
      report.warnings.push({ pointer: '/project/config', message: `the config variables are not set: ${why(e)}` });
    }
  }
  if (conv.validation) {
    // the document's modes where the project has the defaults; the project's own ones are kept
    const v = project.validation;
    if (sameModes(v, DEFAULT_MODES)) await store.projects.update(ownerId, projectId, { validation: conv.validation });
    else if (!sameModes(v, conv.validation))
      report.warnings.push({ pointer: '/project/validation', message: 'the project keeps its validation modes' });
  }
  if (conv.contractJson !== undefined) await attachContract(store, ownerId, project, conv.contractJson, opts, report);
  if (conv.fallbackUrl) {
    if (project.fallbackUrl === null) {
      try {
        const { fallbackUrl } = validateProject({ fallbackUrl: conv.fallbackUrl }, true);
        await store.projects.update(ownerId, projectId, { fallbackUrl });
      } catch (e) {
        report.warnings.push({ pointer: '', message: `the fallback URL ${conv.fallbackUrl} is not set: ${why(e)}` });
      }
    } else if (project.fallbackUrl !== conv.fallbackUrl)
      report.warnings.push({
        pointer: '',
        message: `the project keeps its fallback URL (the document's is ${conv.fallbackUrl})`,
      });
  }

  const writeRules = async (endpoint: Endpoint, d: Checked) => {
    for (const r of d.rules) await store.rules.create(ownerId, projectId, endpoint.id, r, opts.rulesPerEndpoint);
    if (d.storage.length > 0) await store.hot.updateStorage({ kind: 'endpoint', id: endpoint.id }, '', () => d.storage);
  };
  const keepsRules = conv.format === 'openapi' || conv.format === 'swagger';
  // SQLite writes are synchronous under their promises: without a macrotask break a batch of
  // writes would hold mock traffic; yield whenever 5 ms of writing went by
  let since = performance.now();
  const breathe = async () => {
    if (performance.now() - since < 5) return;
    await yieldToLoop();
    since = performance.now();
  };
  // a transaction per chunk of endpoints, not per endpoint: a 1,300-operation description was
  // 1,300 transactions of four statements each on the main thread
  for (let i = 0; i < fresh.length; i += CREATE_CHUNK) {
    const chunk = fresh.slice(i, i + CREATE_CHUNK);
    const made = await store.endpoints.createMany(
      ownerId,
      projectId,
      chunk.map((d) => d.input),
      opts.maxEndpoints,
    );
    for (const [j, d] of chunk.entries()) {
      const e = made[j];
      if (e instanceof AppError) {
        report.skipped.push({
          method: d.input.method,
          path: d.input.path,
          reason: e.code === 'conflict' ? 'an endpoint on this route was created during the import' : e.message,
        });
        continue;
      }
      await writeRules(e, d);
      report.created.push(e);
    }
    await breathe();
  }
  for (const { draft, current } of collisions) {
    if (opts.onConflict === 'skip') {
      report.skipped.push({
        method: draft.input.method,
        path: draft.input.path,
        reason: `endpoint ${current.id} (${current.method} ${current.path}) already answers this route`,
      });
      continue;
    }
    const endpoint = await store.endpoints.update(ownerId, projectId, current.id, draft.input);
    // a document with rules brings the endpoint's rules; an OpenAPI operation (no rules) keeps the project's
    if (!keepsRules)
      for (const r of await store.rules.list(ownerId, projectId, current.id))
        await store.rules.delete(ownerId, projectId, current.id, r.id);
    await writeRules(endpoint, draft);
    report.replaced.push(endpoint);
    await breathe();
  }
  return report;
}

/**
 * A document's contract (a Mockyard export's `contract`) attached to the project, loaded in an import
 * worker like `PUT …/contract` (docs/contract.md); a project's own contract is replaced only with
 * `onConflict=replace`. What cannot be attached is a warning; true when it was attached.
 */
export async function attachContract(
  store: Store,
  ownerId: string,
  project: Project,
  json: string,
  opts: { onConflict: OnConflict },
  report: { warnings: ImportReport['warnings'] },
): Promise<boolean> {
  if (opts.onConflict !== 'replace' && (await store.contracts.exists(ownerId, project.id))) {
    report.warnings.push({ pointer: '/contract', message: 'the project keeps its contract' });
    return false;
  }
  try {
    await store.contracts.put(ownerId, project.id, await loadContract(ownerId, Buffer.from(json), false));
    return true;
  } catch (e) {
    report.warnings.push({ pointer: '/contract', message: `the contract is not attached: ${why(e)}` });
    return false;
  }
}
