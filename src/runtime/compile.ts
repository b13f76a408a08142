/**
 * Records → an immutable compiled project: a route table, compiled conditions, templates and
 * sequences. Built once per configuration version; the hot path only runs what is built here.
 */

import { DEFAULT_MODES, type ValidationModes } from '../domain/contract.js';
import type { GraphqlBinding } from '../domain/graphql.js';
import type { CollectionOperation, RuleRecord, RuleTrace, Step, StorageScope } from '../domain/model.js';
import type { Trigger } from '../domain/sockets.js';
import { compileActions } from './compile-actions.js';
import { type CompiledCollection, compileSeed, lazyBase, seedUsesFaker } from './compile-seed.js';
import { type CompiledCondition, compileCondition } from './conditions.js';
import { type CompiledContract, compileContract } from './contract/compile.js';
import { type CompiledGraphql, compileGraphql } from './graphql/execute.js';
import type { ProjectConfig } from './ports.js';
import { type PreparedHead, prepareHead } from './prepared-head.js';
import { answerHeaders, type OutHeaders, sendableHeaderValue } from './respond.js';
import { Router } from './router.js';
import { compileSequence, type Sequence } from './sequence.js';
import { type CompiledStream, compileStream } from './stream.js';
import {
  compileTemplate,
  countedCollections,
  listedCollections,
  referencesProjectStorage,
  referencesStorage,
  type Template,
  usesFaker,
} from './template.js';

export { type CompiledCollection, compileSeed, seedUsesFaker } from './compile-seed.js';

export interface CompiledStep {
  readonly statusCode: number;
  readonly body: Template;
  /** header name (as written) → value template; content-type excluded */
  readonly headers: readonly (readonly [string, Template])[];
  /** the step's own content-type header, if any */
  readonly contentType: Template | null;
  readonly delayMs: number;
  readonly delayMaxMs: number;
  readonly fault: Step['fault'] | null;
  /** its place in the rule's steps (0-based) and their number, for the request log */
  readonly index: number;
  readonly of: number;
  /** what the step streams instead of one body (src/runtime/stream.ts); null for one body */
  readonly stream: CompiledStream | null;
  /** a WebSocket step's messages (its body alone when it has none) and its close (docs/websocket.md) */
  readonly messages: readonly { readonly body: Template; readonly delayMs: number }[] | null;
  readonly close: { readonly code: number; readonly reason: string } | null;
  /** GraphQL endpoints: merged over the generated answer (docs/graphql.md) */
  readonly graphql: { readonly data?: unknown; readonly errors?: unknown[] } | null;
  /** the whole answer, prebuilt, when nothing in it is templated */
  readonly fixed: {
    readonly body: string;
    readonly headers: Readonly<OutHeaders>;
    /** the answer's head, spelled (null: node spells it each time) */
    readonly head: PreparedHead | null;
  } | null;
}

export type CompiledAction =
  | { readonly type: 'set_variable'; readonly name: string; readonly value: Template; readonly stop: boolean }
  | {
      readonly type: 'store_variable';
      readonly name: string;
      readonly value: Template;
      readonly scope: StorageScope;
      readonly stop: boolean;
    }
  | { readonly type: 'delete_variable'; readonly name: string; readonly scope: StorageScope; readonly stop: boolean }
  | {
      readonly type: 'http_request';
      readonly url: Template;
      readonly method: string;
      readonly headers: readonly (readonly [string, Template])[];
      readonly body: Template;
      readonly applyResponse: boolean;
      readonly timeoutMs: number;
      readonly saveAs: string | null;
      readonly stop: boolean;
    }
  | { readonly type: 'broadcast'; readonly channel: string; readonly body: Template; readonly stop: boolean };

/** A rule's answer with one of its steps (built once: the hot path passes it on as it is). */
export interface StepOutcome {
  readonly kind: 'step';
  readonly ruleId: string;
  readonly step: CompiledStep;
}

export interface CompiledRule {
  readonly id: string;
  readonly name: string;
  /** the request-log traces of this rule, built once: matched, and failed at condition i */
  readonly matchedTrace: RuleTrace;
  readonly failedTraces: readonly RuleTrace[];
  /** per step */
  readonly outcomes: readonly StepOutcome[] | null;
  readonly conditions: readonly CompiledCondition[];
  readonly actions: readonly CompiledAction[];
  readonly steps: readonly CompiledStep[] | null;
  readonly sequence: Sequence | null;
  /** false when every hit gets the same step and the same state (one step, count 1, loop): no counter to keep */
  readonly counted: boolean;
  /** WebSocket endpoints: what runs the rule */
  readonly on: Trigger;
}

/** Shared by the endpoints without headers of their own. */
const NO_HEADERS: readonly (readonly [string, Template])[] = Object.freeze([]);

/** Shared by the endpoints without active rules. */
const NO_RULES: readonly CompiledRule[] = Object.freeze([]);
/** Shared by the endpoints that count, list or open none (collections, WebSocket channels). */
const NO_NAMES: readonly string[] = Object.freeze([]);

/**
 * What the hot path reads of an endpoint: its record's id, status and content type, and its rules
 * and default body compiled. One flat object per endpoint (a project may hold 10,000).
 */
export interface CompiledEndpoint {
  readonly id: string;
  readonly statusCode: number;
  readonly contentType: string;
  /** active rules in evaluation order */
  readonly rules: readonly CompiledRule[];
  /** the default body when it is not templated, else null */
  readonly fixedBody: string | null;
  /** its length in bytes (UTF-8) */
  readonly fixedLength: number;
  /** the fixed answer's headers, made on its first answer and shared by every later one (the
   * request log keeps a reference, so a per-request object would live as long as its place in the
   * log's ring) */
  fixedHeaders: OutHeaders | null;
  /** the default answer's head, spelled on its first answer (undefined: not yet; null: node
   * spells it each time) */
  head: PreparedHead | null | undefined;
  /** the default body's template when it is templated, else null */
  readonly defaultBody: Template | null;
  /** the default answer's own headers (name → value template); shared empty list when none */
  readonly headers: readonly (readonly [string, Template])[];
  /** some header value is templated: the default answer is rendered per request */
  readonly headersTemplated: boolean;
  /** some template or condition reads the endpoint's storage: load it before evaluating */
  readonly readsStorage: boolean;
  /** some template or condition reads the project's storage ({{project.*}}): load it too */
  readonly readsProjectStorage: boolean;
  /** bound to a collection (docs/stateful-mocks.md): the operation answers when no rule does */
  readonly data: {
    readonly collection: string;
    readonly operation: CollectionOperation;
    readonly idParam: string | null;
    /** what the request log notes of it, shared by every answer (as `fixedHeaders`) */
    readonly note: { readonly collection: string; readonly operation: CollectionOperation };
  } | null;
  /** collections whose count a template reads ({{collection.NAME.count}}) */
  readonly counts: readonly string[];
  /** collections whose items a template reads ({{#each collection.NAME.items}}) */
  readonly lists: readonly string[];
  /** the endpoint's own contract validation modes; null: the project's (docs/contract.md) */
  readonly validation: ValidationModes | null;
  /** a WebSocket endpoint's channels besides `default` (docs/websocket.md) */
  readonly channels: readonly string[];
  /** a GraphQL endpoint's schema and bindings (docs/graphql.md) */
  readonly graphql: CompiledGraphql | null;
  /**
   * What evaluating the rules can wait for: `never` (no storage to load, no rule with an action or
   * a counter), `hits` (rules with counters but nothing to load and no actions: a hit counter is
   * the only wait), `acts` (rules with actions but nothing to load: engine's loop as an object,
   * acting.ts), or `steps` (a storage, a count or a list to load first: the step function).
   */
  readonly waits: 'never' | 'hits' | 'acts' | 'steps';
}

export interface CompiledProject {
  readonly id: string;
  readonly ownerId?: string;
  readonly version: number;
  readonly fallbackUrl: string | null;
  /** record mode: every request goes to fallbackUrl and its answer is recorded (runtime/recorder.ts) */
  readonly recording: boolean;
  readonly router: Router<CompiledEndpoint>;
  /** some template calls faker: it must be loaded before the project is served */
  readonly usesFaker: boolean;
  /** config variables (`{{config.NAME}}`) */
  readonly config: ReadonlyMap<string, string>;
  /** the OpenAPI contract mock traffic is checked against, and how (docs/contract.md) */
  readonly contract: CompiledContract | null;
  readonly validation: ValidationModes;
  /** the project's collections by name; `render` gives the seed for a new session's copy */
  readonly collections: ReadonlyMap<string, CompiledCollection>;
}

function compileStep(s: Step, index: number, of: number, sources: string[], endpointContentType: string): CompiledStep {
  const headers: [string, Template][] = [];
  let contentType: Template | null = null;
  for (const [k, v] of Object.entries(s.headers)) {
    sources.push(v);
    if (k.toLowerCase() === 'content-type') contentType = compileTemplate(v);
    else headers.push([k, compileTemplate(v)]);
  }
  sources.push(s.body);
  const body = compileTemplate(s.body);
  const stream = compileStream(s, sources);
  let fixed: CompiledStep['fixed'] = null;
  const constant = (t: Template) => t.constant !== undefined;
  if (
    stream === null &&
    body.constant !== undefined &&
    headers.every(([, t]) => constant(t)) &&
    (!contentType || constant(contentType))
  ) {
    const text = body.constant;
    const own = contentType?.constant;
    const length = Buffer.byteLength(text);
    const answer = answerHeaders(
      headers.map(([k, t]) => [k, t.constant as string] as const),
      own !== undefined && sendableHeaderValue(own) ? own : endpointContentType,
      length,
    );
    fixed = { body: text, headers: answer, head: prepareHead(s.statusCode, answer, length) };
  }
  return {
    statusCode: s.statusCode,
    body,
    headers,
    contentType,
    delayMs: s.delayMs,
    delayMaxMs: Math.max(s.delayMs, s.delayMaxMs),
    fault: s.fault ?? null,
    index,
    of,
    stream,
    fixed,
    messages: s.messages
      ? s.messages.map((m) => {
          sources.push(m.body);
          return { body: compileTemplate(m.body), delayMs: m.delayMs ?? 0 };
        })
      : null,
    close: s.close ? { code: s.close.code, reason: s.close.reason ?? '' } : null,
    graphql: s.graphql ?? null,
  };
}

function compileRule(r: RuleRecord, sources: string[], endpointContentType: string): CompiledRule {
  const actions = compileActions(r.actions, sources);
  const steps = r.response
    ? r.response.steps.map((s, i, all) => compileStep(s, i, all.length, sources, endpointContentType))
    : null;
  return {
    on: r.on ?? 'message',
    id: r.id,
    name: r.name,
    matchedTrace: Object.freeze({ ruleId: r.id, name: r.name, matched: true }),
    failedTraces: r.conditions.map((_, i) =>
      Object.freeze({ ruleId: r.id, name: r.name, matched: false, failedCondition: i }),
    ),
    outcomes: steps ? steps.map((step) => Object.freeze({ kind: 'step' as const, ruleId: r.id, step })) : null,
    conditions: r.conditions.map(compileCondition),
    actions,
    steps,
    counted: !(
      r.response &&
      r.response.mode === 'loop' &&
      r.response.steps.length === 1 &&
      r.response.steps[0].count === 1
    ),
    sequence: r.response
      ? compileSequence(
          r.response.steps.map((s) => s.count),
          r.response.mode,
        )
      : null,
  };
}

export function compileProject(cfg: ProjectConfig): CompiledProject {
  const byEndpoint = new Map<string, RuleRecord[]>();
  for (const r of cfg.rules) {
    if (!r.active) continue;
    const list = byEndpoint.get(r.endpointId);
    if (list) list.push(r);
    else byEndpoint.set(r.endpointId, [r]);
  }
  const router = new Router<CompiledEndpoint>();
  // one string per distinct content type, not one per endpoint (a project may hold 10,000)
  const contentTypes = new Map<string, string>();
  let anyFaker = cfg.collections.some((c) => seedUsesFaker(c.seed));
  for (const e of cfg.endpoints) {
    const sources: string[] = [e.responseBody];
    const own = byEndpoint.get(e.id);
    const safeType = sendableHeaderValue(e.contentType) ? e.contentType : 'application/octet-stream';
    const rules = own ? own.map((r) => compileRule(r, sources, safeType)) : NO_RULES;
    const defaultBody = compileTemplate(e.responseBody);
    // a GraphQL endpoint answers from its schema: never the fixed default (docs/graphql.md)
    const gql = e.graphql ? compileGraphql(e.graphql) : null;
    if (gql) anyFaker = true;
    let contentType = contentTypes.get(e.contentType);
    if (contentType === undefined) {
      // a value saved before it was validated at save (SECURITY.md) must not fail every answer
      contentType = sendableHeaderValue(e.contentType) ? e.contentType : 'application/octet-stream';
      contentTypes.set(e.contentType, contentType);
    }
    const ownHeaders = Object.entries(e.headers ?? {});
    for (const [, v] of ownHeaders) sources.push(v);
    const headers = ownHeaders.length === 0 ? NO_HEADERS : ownHeaders.map(([k, v]) => [k, compileTemplate(v)] as const);
    const headersTemplated = headers.some(([, t]) => t.constant === undefined);
    // a templated header makes the answer a rendered one, body included
    const fixedBody = headersTemplated || gql ? null : (defaultBody.constant ?? null);
    anyFaker ||= sources.some(usesFaker);
    const conditionTargets = new Set(own?.flatMap((r) => r.conditions.map((c) => c.target)));
    const readsStorage = conditionTargets.has('endpoint') || sources.some(referencesStorage);
    const readsProjectStorage = conditionTargets.has('project') || sources.some(referencesProjectStorage);
    const counted = sources.flatMap(countedCollections);
    const listed = sources.flatMap(listedCollections);
    // an empty list shared, not one per endpoint (10,000 endpoints: 0.3 MB)
    const counts = counted.length === 0 ? NO_NAMES : [...new Set(counted)];
    const lists = listed.length === 0 ? NO_NAMES : [...new Set(listed)];
    const params = [...e.path.matchAll(/(?:^|\/):([^/]+)/g)].map((m) => m[1]);
    const compiled: CompiledEndpoint = {
      id: e.id,
      statusCode: e.statusCode,
      contentType,
      rules,
      fixedBody,
      fixedLength: fixedBody === null ? 0 : Buffer.byteLength(fixedBody),
      fixedHeaders: null,
      head: undefined,
      defaultBody: fixedBody === null ? defaultBody : null,
      headers,
      headersTemplated,
      readsStorage,
      readsProjectStorage,
      data: e.data
        ? {
            ...e.data,
            idParam: params.at(-1) ?? null,
            note: { collection: e.data.collection, operation: e.data.operation },
          }
        : null,
      counts,
      lists,
      validation: e.validation ?? null,
      // a shared empty list, not the one each stored endpoint was read with (10,000 endpoints: 0.3 MB)
      channels: e.channels !== undefined && e.channels.length > 0 ? e.channels : NO_NAMES,
      graphql: gql,
      waits:
        readsStorage || readsProjectStorage || counts.length > 0 || lists.length > 0
          ? 'steps'
          : rules.some((r) => r.actions.length > 0)
            ? 'acts'
            : rules.some((r) => r.counted)
              ? 'hits'
              : 'never',
    };
    router.add(e.method, e.path, compiled);
    // a GraphQL endpoint answers GET ?query= at its path too, unless a GET endpoint is there
    if (gql && e.method === 'POST' && !cfg.endpoints.some((o) => o.method === 'GET' && o.path === e.path))
      router.add('GET', e.path, compiled);
  }
  return {
    id: cfg.project.id,
    version: cfg.version,
    fallbackUrl: cfg.project.fallbackUrl,
    recording: cfg.project.recording && cfg.project.fallbackUrl !== null,
    router: router.built(),
    usesFaker: anyFaker,
    config: new Map(Object.entries(cfg.project.config ?? {})),
    contract: cfg.contract ? compileContract(cfg.contract.format, JSON.parse(cfg.contract.resolved)) : null,
    validation: cfg.project.validation ?? DEFAULT_MODES,
    collections: new Map(
      cfg.collections.map((c) => [
        c.name,
        {
          idField: c.idField,
          seed: c.seed,
          render: compileSeed(c.seed),
          base: lazyBase(c.seed, c.idField),
          subscribed: subscribedOps(cfg.endpoints, c.name),
        },
      ]),
    ),
  };
}

/** The operations on `collection` that a GraphQL endpoint's `Subscription.*` bindings listen to. */
function subscribedOps(
  endpoints: readonly { graphql?: { bindings?: Record<string, GraphqlBinding> } | null }[],
  collection: string,
): Set<string> {
  const ops = new Set<string>();
  for (const e of endpoints)
    for (const [field, b] of Object.entries(e.graphql?.bindings ?? {}))
      if (field.startsWith('Subscription.') && b.collection === collection) ops.add(b.operation);
  return ops;
}
