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
import { planFor, RULE_LIMITS } from '../domain/constants.js';
import { DEFAULT_MODES, sameModes, type ValidationModes, ValidationModesSchema } from '../domain/contract.js';
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
import type { StorageCaps } from '../domain/storage-caps.js';
import { type RuleInput, ruleFields, validateProject } from '../domain/validate.js';
import type { Store } from '../store/index.js';
import { applyImport, check } from './apply.js';
import { type Converted, emptyConverted } from './types.js';

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
        validation: Type.Optional(ValidationModesSchema),
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
    contract: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: "the project's OpenAPI 3.0 / 3.1 or Swagger 2.0 contract, as GET …/contract answers it",
        },
      ),
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
  project: { name: string; fallbackUrl: string | null; config?: Record<string, string>; validation?: ValidationModes };
  endpoints: ExportedEndpoint[];
  collections?: { name: string; idField: string; seed: Record<string, unknown>[] }[];
  storage?: Record<string, Record<string, string>>;
  projectStorage?: Record<string, string>;
  contract?: unknown;
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
  if (!sameModes(project.validation, DEFAULT_MODES)) doc.project.validation = project.validation;
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
      rules: rules.map(ruleFields),
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
  const contract = await store.contracts.get(ownerId, projectId);
  if (contract) doc.contract = contract.document;
  return doc;
}

export type ExportDocumentInput = Static<typeof ExportDocumentSchema>;

/** An export document as drafts for `apply.ts` (every door's one reading of the format). */
export function exportToDrafts(doc: ExportDocumentInput): Converted {
  const out = emptyConverted('mockyard');
  out.name = doc.project.name;
  out.fallbackUrl = doc.project.fallbackUrl ?? null;
  if (doc.project.config) out.config = doc.project.config;
  if (doc.project.validation) out.validation = { ...DEFAULT_MODES, ...doc.project.validation };
  if (doc.contract) out.contractJson = JSON.stringify(doc.contract);
  // storage keys are "METHOD path", the method in any case
  const storage = new Map<string, { key: string; values: Record<string, string> }>();
  for (const [key, values] of Object.entries(doc.storage ?? {})) {
    const sp = key.indexOf(' ');
    storage.set(sp > 0 ? storageKey(key.slice(0, sp), key.slice(sp + 1)) : key, { key, values });
  }
  const used = new Set<string>();
  doc.endpoints.forEach((e, i) => {
    const { rules = [], ...fields } = e;
    const method = String(fields.method).toUpperCase() as HttpMethod;
    const stored = storage.get(storageKey(method, fields.path));
    if (stored) used.add(stored.key);
    out.endpoints.push({
      method,
      path: fields.path,
      statusCode: fields.statusCode ?? 200,
      responseBody: fields.responseBody ?? '',
      contentType: fields.contentType ?? 'application/json',
      ...(fields.data ? { data: fields.data } : {}),
      ...(fields.headers ? { headers: fields.headers } : {}),
      ...(fields.channels ? { channels: fields.channels } : {}),
      ...(fields.graphql ? { graphql: fields.graphql } : {}),
      ...(fields.validation ? { validation: { ...DEFAULT_MODES, ...fields.validation } } : {}),
      rules: rules.map((r, j) => ({
        ...(r as unknown as RuleInput),
        priority: r.priority ?? 0,
        active: r.active ?? true,
        conditions: (r.conditions ?? []) as Condition[],
        response: (r.response ?? null) as RuleResponse | null,
        actions: (r.actions ?? []) as Action[],
        pointer: `/endpoints/${i}/rules/${j}`,
      })),
      storage: Object.entries(stored?.values ?? {}),
      ...(stored ? { storageAt: `/storage/${pointerPart(stored.key)}` } : {}),
      pointer: `/endpoints/${i}`,
    });
  });
  for (const { key } of storage.values())
    if (!used.has(key))
      out.warnings.push({
        pointer: `/storage/${pointerPart(key)}`,
        message: 'names no endpoint of this document ("METHOD path")',
      });
  const names = new Set<string>();
  (doc.collections ?? []).forEach((c, i) => {
    if (names.has(c.name)) {
      out.warnings.push({ pointer: `/collections/${i}/name`, message: `a second collection ${c.name}` });
      return;
    }
    names.add(c.name);
    const seed = (c.seed ?? []) as Record<string, unknown>[];
    out.collections.push({ name: c.name, idField: c.idField ?? 'id', seed, pointer: `/collections/${i}` });
  });
  out.projectStorage = Object.entries(doc.projectStorage ?? {});
  return out;
}

export interface ImportLimits {
  /** rules per endpoint of the caller's plan */
  rulesPerEndpoint: number;
  endpointsPerProject: number;
  projectsPerUser: number;
  /** the stored-variable caps (config.caps); the defaults when not given */
  storage?: StorageCaps;
}

/**
 * A schema-valid export document as a new project of the caller, all or nothing: every record
 * checked as the API checks it (one 400 listing every problem), the plan's rule limit a 403, then
 * written through the same `applyImport` every other door uses; a half-made project is removed.
 */
export async function importProject(
  store: Store,
  ownerId: string,
  doc: ExportDocumentInput,
  nameOverride: string | undefined,
  limits: ImportLimits,
): Promise<Project> {
  const problems: ErrorDetail[] = [];
  const fields = { name: doc.project.name, fallbackUrl: doc.project.fallbackUrl ?? null, config: doc.project.config };
  const project = under('/project', problems, () => validateProject({ ...fields, config: fields.config ?? {} }, false));
  let name = project?.name ?? '';
  if (nameOverride !== undefined) {
    const over = under('', problems, () => validateProject({ name: nameOverride }, true));
    if (over?.name !== undefined) name = over.name;
  }
  const conv = exportToDrafts(doc);
  const report = { skipped: [], warnings: [] };
  const checked = check(conv, limits.rulesPerEndpoint, report, limits.storage, problems);
  if (problems.length > 0) throw validationError(problems);
  if (doc.endpoints.length > limits.endpointsPerProject)
    throw new AppError('limit_exceeded', `At most ${limits.endpointsPerProject} endpoints per project`);
  doc.endpoints.forEach((e, i) => {
    const n = e.rules?.length ?? 0;
    if (n > limits.rulesPerEndpoint) {
      throw new AppError(
        'plan_limit_exceeded',
        `Your plan allows ${limits.rulesPerEndpoint} rules per endpoint; /endpoints/${i} (${e.method} ${e.path}) has ${n}; the ${planFor(n)} plan allows ${RULE_LIMITS[planFor(n)]} (MOCKYARD_DEFAULT_PLAN, or the admin API)`,
      );
    }
  });
  const created = await store.projects.create(
    ownerId,
    {
      name,
      fallbackUrl: project?.fallbackUrl ?? null,
      config: project?.config ?? {},
      ...(conv.validation ? { validation: conv.validation } : {}),
    },
    limits.projectsPerUser,
  );
  try {
    await applyImport(
      store,
      ownerId,
      created,
      { ...conv, config: undefined, fallbackUrl: null, validation: undefined },
      {
        onConflict: 'fail',
        maxEndpoints: limits.endpointsPerProject,
        rulesPerEndpoint: limits.rulesPerEndpoint,
        checked,
      },
    );
  } catch (err) {
    await store.projects.delete(ownerId, created.id).catch(() => {});
    throw err;
  }
  return created;
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
