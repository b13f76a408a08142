/**
 * A whole project as one versioned JSON document (docs/interop.md), and back:
 * `{mockyard: 1, exportedAt, project: {name, fallbackUrl}, endpoints: [{method, path, statusCode,
 * responseBody, contentType, rules: [{name, priority, active, conditions, response, actions}]}],
 * data?}], collections?: [{name, idField, seed}], storage?: {"METHOD path": {name: value}},
 * projectStorage?: {name: value}}` (storage of the shared state only, with `?storage=true`).
 * Ids, timestamps and sequence positions are not part of it: an import is a new project whose
 * sequences start at step 0. Import validates the whole document before writing anything (the JSON
 * schema below, then validateEndpoint/validateRule on every record, duplicates, plan limits), and
 * removes the half-made project if a write still fails.
 */

import { type Static, Type } from '@sinclair/typebox';
import { checkSeed } from '../domain/collections.js';
import { planFor, RULE_LIMITS } from '../domain/constants.js';
import type { ValidationModes } from '../domain/contract.js';
import { AppError, type ErrorDetail, validationError } from '../domain/errors.js';
import type { GraphqlConfig } from '../domain/graphql.js';
import {
  type Action,
  COLLECTION_NAME,
  type Condition,
  type DataBinding,
  type HttpMethod,
  type Project,
  type RuleResponse,
} from '../domain/model.js';
import { EndpointBody, LIMITS, RuleBody } from '../domain/schemas.js';
import type { Trigger } from '../domain/sockets.js';
import { capStorage, DEFAULT_STORAGE_CAPS, type StorageCaps } from '../domain/storage-caps.js';
import {
  type EndpointInput,
  type RuleInput,
  validateEndpoint,
  validateProject,
  validateRule,
} from '../domain/validate.js';
import type { Store } from '../store/index.js';

export const EXPORT_VERSION = 1;

const ExportRuleSchema = Type.Omit(RuleBody, ['id', 'endpointId', 'state', 'createdAt', 'updatedAt']);
const ExportEndpointSchema = Type.Composite(
  [
    Type.Omit(EndpointBody, ['id', 'projectId', 'createdAt', 'updatedAt', 'rules', 'contentType']),
    Type.Object({
      rules: Type.Optional(Type.Array(ExportRuleSchema, { maxItems: 1000 })),
      // '' is an imported "no content" answer (docs/interop.md): sent without a Content-Type
      contentType: Type.Optional(Type.String({ maxLength: LIMITS.contentTypeLength })),
    }),
  ],
  { additionalProperties: false },
);

/** The export document; also the body schema of POST /api/projects/import. */
export const ExportDocumentSchema = Type.Object(
  {
    mockyard: Type.Literal(EXPORT_VERSION, { description: 'format version' }),
    exportedAt: Type.Optional(Type.String({ maxLength: 64 })),
    project: Type.Object(
      {
        name: Type.String({ maxLength: 1000 }),
        fallbackUrl: Type.Optional(Type.Union([Type.String({ maxLength: LIMITS.urlLength }), Type.Null()])),
        config: Type.Optional(Type.Record(Type.String(), Type.String())),
      },
      { additionalProperties: false },
    ),
    endpoints: Type.Array(ExportEndpointSchema),
    storage: Type.Optional(
      Type.Record(Type.String(), Type.Record(Type.String(), Type.String()), {
        description: '"METHOD path" → stored variables of that endpoint',
      }),
    ),
    collections: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ pattern: COLLECTION_NAME.source }),
            idField: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            seed: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 10_000 })),
          },
          { additionalProperties: false },
        ),
        { maxItems: 1000, description: 'the project’s collections with their seeds (not the sessions’ items)' },
      ),
    ),
    projectStorage: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'the project storage of the shared state' }),
    ),
  },
  { additionalProperties: false },
);

export interface ExportedRule {
  name: string;
  priority: number;
  active: boolean;
  conditions: Condition[];
  response: RuleResponse | null;
  actions: Action[];
  on?: Trigger;
}

export interface ExportedEndpoint {
  method: HttpMethod;
  path: string;
  statusCode: number;
  responseBody: string;
  contentType: string;
  data?: DataBinding;
  headers?: Record<string, string>;
  channels?: string[];
  validation?: ValidationModes | null;
  graphql?: GraphqlConfig;
  rules: ExportedRule[];
}

export interface ExportDocument {
  mockyard: typeof EXPORT_VERSION;
  exportedAt: string;
  project: { name: string; fallbackUrl: string | null; config?: Record<string, string> };
  endpoints: ExportedEndpoint[];
  collections?: { name: string; idField: string; seed: Record<string, unknown>[] }[];
  storage?: Record<string, Record<string, string>>;
  projectStorage?: Record<string, string>;
}

/** A JSON Pointer reference token. */
const pointerPart = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

export const storageKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/** The caller's project as an export document (`storage`: include the endpoints' stored variables). */
export async function exportProject(
  store: Store,
  ownerId: string,
  projectId: string,
  opts: { storage: boolean },
): Promise<ExportDocument> {
  const project = await store.projects.require(ownerId, projectId);
  const endpoints = await store.endpoints.list(ownerId, projectId);
  const doc: ExportDocument = {
    mockyard: EXPORT_VERSION,
    exportedAt: new Date().toISOString(),
    project: { name: project.name, fallbackUrl: project.fallbackUrl },
    endpoints: [],
  };
  if (Object.keys(project.config).length > 0) doc.project.config = project.config;
  const collections = await store.collections.list(ownerId, projectId);
  if (collections.length > 0)
    doc.collections = collections.map((c) => ({ name: c.name, idField: c.idField, seed: c.seed }));
  const storage: Record<string, Record<string, string>> = {};
  for (const e of endpoints) {
    const rules = await store.rules.list(ownerId, projectId, e.id);
    doc.endpoints.push({
      method: e.method,
      path: e.path,
      statusCode: e.statusCode,
      responseBody: e.responseBody,
      contentType: e.contentType,
      ...(e.data ? { data: e.data } : {}),
      ...(Object.keys(e.headers).length > 0 ? { headers: e.headers } : {}),
      ...(e.channels.length > 0 ? { channels: e.channels } : {}),
      ...(e.graphql ? { graphql: e.graphql } : {}),
      ...(e.validation ? { validation: e.validation } : {}),
      rules: rules.map((r) => ({
        name: r.name,
        priority: r.priority,
        active: r.active,
        conditions: r.conditions,
        response: r.response,
        actions: r.actions,
        ...(r.on ? { on: r.on } : {}),
      })),
    });
    if (opts.storage) {
      const values = await store.storage.get(ownerId, projectId, e.id, '');
      if (Object.keys(values).length > 0) storage[storageKey(e.method, e.path)] = { ...values };
    }
  }
  if (opts.storage) {
    doc.storage = storage;
    const shared = await store.storage.getProject(ownerId, projectId, '');
    if (Object.keys(shared).length > 0) doc.projectStorage = { ...shared };
  }
  return doc;
}

export type ExportDocumentInput = Static<typeof ExportDocumentSchema>;

interface CheckedImport {
  name: string;
  fallbackUrl: string | null;
  config: Record<string, string>;
  endpoints: { input: EndpointInput; rules: RuleInput[]; storage: [string, string][] }[];
  collections: { name: string; idField: string; seed: Record<string, unknown>[] }[];
  projectStorage: [string, string][];
}

/** Runs `fn` and re-roots the details of a validation error it throws under `prefix`. */
function under<T>(prefix: string, problems: ErrorDetail[], fn: () => T): T | undefined {
  try {
    return fn();
  } catch (e) {
    if (e instanceof AppError && e.code === 'validation_failed') {
      for (const d of e.details ?? [{ path: '/', message: e.message }]) {
        problems.push({ path: `${prefix}${d.path === '/' ? '' : d.path}`, message: d.message });
      }
      return undefined;
    }
    throw e;
  }
}

export interface ImportLimits {
  /** rules per endpoint of the caller's plan */
  rulesPerEndpoint: number;
  endpointsPerProject: number;
  /** the stored-variable caps (config.caps); the defaults when not given */
  storage?: StorageCaps;
}

/**
 * Semantic checks of a schema-valid document: every endpoint and rule as the API would check it,
 * no two endpoints on one route, storage keys naming an endpoint of the document, the limits.
 */
export function checkImport(doc: ExportDocumentInput, nameOverride: string | undefined, limits: ImportLimits) {
  const problems: ErrorDetail[] = [];
  const project = under('/project', problems, () =>
    validateProject(
      { name: doc.project.name, fallbackUrl: doc.project.fallbackUrl ?? null, config: doc.project.config ?? {} },
      false,
    ),
  );
  let name = project?.name ?? '';
  if (nameOverride !== undefined) {
    const over = under('', problems, () => validateProject({ name: nameOverride }, true));
    if (over?.name !== undefined) name = over.name;
  }
  const out: CheckedImport = {
    name,
    fallbackUrl: project?.fallbackUrl ?? null,
    config: project?.config ?? {},
    endpoints: [],
    collections: [],
    projectStorage: Object.entries(doc.projectStorage ?? {}),
  };
  const names = new Set<string>();
  (doc.collections ?? []).forEach((c, i) => {
    if (names.has(c.name)) problems.push({ path: `/collections/${i}/name`, message: `a second collection ${c.name}` });
    names.add(c.name);
    const idField = c.idField ?? 'id';
    const seed = under(`/collections/${i}`, problems, () =>
      checkSeed((c.seed ?? []) as Record<string, unknown>[], idField),
    );
    if (seed) out.collections.push({ name: c.name, idField, seed });
  });
  const routes = new Map<string, number>();
  const byKey = new Map<string, number>();
  doc.endpoints.forEach((e, i) => {
    const { rules = [], ...fields } = e;
    const input = under(`/endpoints/${i}`, problems, () => validateEndpoint(fields));
    const checkedRules: RuleInput[] = [];
    rules.forEach((r, j) => {
      const rule = under(`/endpoints/${i}/rules/${j}`, problems, () => validateRule(r as Record<string, unknown>));
      if (rule) checkedRules.push(rule);
    });
    if (!input) return;
    const route = `${input.method} ${input.routeKey}`;
    const first = routes.get(route);
    if (first !== undefined) {
      problems.push({
        path: `/endpoints/${i}/path`,
        message: `${input.method} ${input.path} is the same route as /endpoints/${first}`,
      });
    }
    routes.set(route, i);
    byKey.set(storageKey(input.method, input.path), i);
    out.endpoints.push({ input, rules: checkedRules, storage: [] });
  });
  for (const [key, values] of Object.entries(doc.storage ?? {})) {
    const sp = key.indexOf(' ');
    const i = sp > 0 ? byKey.get(storageKey(key.slice(0, sp), key.slice(sp + 1))) : undefined;
    if (i === undefined) {
      problems.push({
        path: `/storage/${pointerPart(key)}`,
        message: 'names no endpoint of this document ("METHOD path")',
      });
      continue;
    }
    out.endpoints[i]?.storage.push(...Object.entries(values));
  }
  // stored values obey the caps a store_variable action obeys
  const caps = limits.storage ?? DEFAULT_STORAGE_CAPS;
  const capped = (entries: [string, string][], at: (name: string) => string) => {
    for (const c of capStorage(entries, caps).cut) problems.push({ path: at(c.name), message: c.why });
  };
  capped(out.projectStorage, (n) => `/projectStorage/${pointerPart(n)}`);
  for (const [key, values] of Object.entries(doc.storage ?? {}))
    capped(Object.entries(values), (n) => `/storage/${pointerPart(key)}/${pointerPart(n)}`);
  if (problems.length > 0) throw validationError(problems);
  if (doc.endpoints.length > limits.endpointsPerProject) {
    throw new AppError('limit_exceeded', `At most ${limits.endpointsPerProject} endpoints per project`);
  }
  doc.endpoints.forEach((e, i) => {
    const n = e.rules?.length ?? 0;
    if (n > limits.rulesPerEndpoint) {
      throw new AppError(
        'plan_limit_exceeded',
        `Your plan allows ${limits.rulesPerEndpoint} rules per endpoint; /endpoints/${i} (${e.method} ${e.path}) has ${n}; the ${planFor(n)} plan allows ${RULE_LIMITS[planFor(n)]} (MOCKYARD_DEFAULT_PLAN, or the admin API)`,
      );
    }
  });
  return out;
}

/** Writes a checked document as a new project of the caller; all or nothing. */
export async function importProject(
  store: Store,
  ownerId: string,
  checked: ReturnType<typeof checkImport>,
  limits: { rulesPerEndpoint: number; projectsPerUser: number },
): Promise<Project> {
  const { rulesPerEndpoint } = limits;
  const project = await store.projects.create(
    ownerId,
    { name: checked.name, fallbackUrl: checked.fallbackUrl, config: checked.config },
    limits.projectsPerUser,
  );
  try {
    for (const c of checked.collections)
      await store.collections.create(ownerId, project.id, c.name, { idField: c.idField, seed: c.seed });
    if (checked.projectStorage.length > 0)
      await store.hot.updateStorage({ kind: 'project', id: project.id }, '', () => checked.projectStorage);
    for (const e of checked.endpoints) {
      const endpoint = await store.endpoints.create(ownerId, project.id, e.input);
      for (const r of e.rules) await store.rules.create(ownerId, project.id, endpoint.id, r, rulesPerEndpoint);
      if (e.storage.length > 0)
        await store.hot.updateStorage({ kind: 'endpoint', id: endpoint.id }, '', () => e.storage);
    }
  } catch (err) {
    await store.projects.delete(ownerId, project.id).catch(() => {});
    throw err;
  }
  return project;
}
