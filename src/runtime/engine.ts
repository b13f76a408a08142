/**
 * Request → outcome, with the store, the egress client and the clock injected. Walks the
 * endpoint's active rules in priority order (SPEC §1): conditions, then actions, then the first
 * response wins; else the endpoint's default. Keeps one compiled snapshot per project, swapped
 * whole when a change arrives, so a request sees one consistent version from start to end.
 */
import type { Logger } from 'pino';
import { type Caps, DEFAULT_CAPS } from '../config.js';
import type { ActionOutcome, RuleTrace } from '../domain/model.js';
import type { CompiledEndpoint, CompiledProject, CompiledRule, StepOutcome } from './compile.js';
import { compileProject } from './compile.js';
import { evaluateConditions } from './conditions.js';
import type { MockContext } from './context.js';
import { type Egress, EgressError, type EgressResponse, HOP_HEADER } from './egress.js';
import type { RuntimeStore } from './ports.js';
import { SessionTracker } from './sessions.js';
import { drive, type Steps } from './steps.js';
import { CapExceeded } from './template.js';

/** Action pipeline budget of one request (CONTRACT §5). */
export const ACTION_BUDGET_MS = 10_000;
/** A webhook that reaches this service again more than this many times is refused. */
export const MAX_HOPS = 3;

/**
 * Bounds the outbound requests in flight at once (HTTP Request actions and the fallback proxy share
 * it). Past the bound a request fails at once with a network error instead of queueing: a rule that
 * fans out to a slow target cannot pile up sockets and memory, and the action's onError decides what
 * happens next, as for any other failed call.
 */
export function limitEgress(inner: Egress, maxInFlight: number): Egress & { inFlight(): number } {
  let inFlight = 0;
  return {
    async request(req) {
      if (inFlight >= maxInFlight) {
        throw new EgressError('network', `busy: ${maxInFlight} outbound requests already in flight`);
      }
      inFlight++;
      try {
        return await inner.request(req);
      } finally {
        inFlight--;
      }
    },
    close: () => inner.close(),
    inFlight: () => inFlight,
  };
}

/** A value `store_variable` may keep, or the cap it breaks (nothing is stored then). */
function checkStored(caps: Caps, current: Map<string, string>, name: string, value: string): void {
  // bytes ≥ characters, and ≤ 3 per character: measure only when it could matter
  if (value.length * 3 > caps.storedValueBytes && Buffer.byteLength(value) > caps.storedValueBytes) {
    throw new CapExceeded('value_too_large', `value_too_large: a stored value may hold ${caps.storedValueBytes} bytes`);
  }
  if (!current.has(name) && current.size >= caps.storedNames) {
    throw new CapExceeded('too_many_names', `too_many_names: at most ${caps.storedNames} stored names per session`);
  }
}

/** Evaluates a rule's conditions and records its trace: matched, or the first condition that failed. */
function matches(rule: CompiledRule, ctx: MockContext, traces: RuleTrace[]): boolean {
  const failed = evaluateConditions(rule.conditions, ctx);
  traces.push(failed >= 0 ? rule.failedTraces[failed] : rule.matchedTrace);
  return failed < 0;
}

/** The outcome of an action that succeeded, one shared object per type (never mutated). */
const OK: Readonly<Record<ActionOutcome['type'], ActionOutcome>> = Object.freeze({
  set_variable: Object.freeze({ type: 'set_variable', ok: true }),
  store_variable: Object.freeze({ type: 'store_variable', ok: true }),
  http_request: Object.freeze({ type: 'http_request', ok: true }),
});

/** Shared by evaluations that ran no action (never mutated). */
const NO_ACTIONS: ActionOutcome[] = Object.freeze([]) as unknown as ActionOutcome[];

export type Outcome =
  | StepOutcome
  | { kind: 'default' }
  | { kind: 'applied'; ruleId: string; status: number; body: string; contentType: string };

const DEFAULT_OUTCOME: Outcome = Object.freeze({ kind: 'default' });

export interface Evaluation {
  outcome: Outcome;
  actions: ActionOutcome[];
  rules: RuleTrace[];
}

export interface EngineDeps {
  store: RuntimeStore;
  egress: Egress;
  log: Logger;
  /** output and state caps (CONTRACT §10); the defaults when not given */
  caps?: Caps;
  /** ms since epoch (tests inject a clock) */
  now?: () => number;
}

/** Record ids are 22 base64url characters (src/store/ids.ts): anything else is no project, without a query. */
const PROJECT_ID = /^[A-Za-z0-9_-]{22}$/;
/** How long an unknown project id or slug is answered from memory (a new one is served within it). */
const MISS_TTL_MS = 1000;
/** Unknown ids and slugs remembered at once: a scan of random ids cannot grow memory past it. */
const MAX_MISSES = 10_000;

/** A bounded map of recent misses (oldest forgotten first). */
class MissCache {
  private readonly until = new Map<string, number>();
  constructor(private readonly now: () => number) {}
  has(key: string): boolean {
    const t = this.until.get(key);
    if (t === undefined) return false;
    if (t > this.now()) return true;
    this.until.delete(key);
    return false;
  }
  add(key: string): void {
    this.until.delete(key);
    if (this.until.size >= MAX_MISSES) {
      const oldest = this.until.keys().next().value;
      if (oldest !== undefined) this.until.delete(oldest);
    }
    this.until.set(key, this.now() + MISS_TTL_MS);
  }
  delete(key: string): void {
    this.until.delete(key);
  }
  clear(): void {
    this.until.clear();
  }
  get size(): number {
    return this.until.size;
  }
}

export class Engine {
  private readonly cache = new Map<string, CompiledProject>();
  private readonly misses: MissCache;
  private readonly loading = new Map<string, Promise<CompiledProject | null>>();
  private readonly generation = new Map<string, number>();
  /** mock host label → project id (CONTRACT §9) */
  private readonly slugs = new Map<string, string>();
  private readonly slugMisses: MissCache;
  private readonly caps: Caps;
  private readonly now: () => number;
  /** the sessions of each project, least recently used first (CONTRACT §10) */
  readonly sessions: SessionTracker;

  constructor(private readonly deps: EngineDeps) {
    this.caps = deps.caps ?? DEFAULT_CAPS;
    this.now = deps.now ?? Date.now;
    this.misses = new MissCache(this.now);
    this.slugMisses = new MissCache(this.now);
    this.sessions = new SessionTracker(this.caps.sessionsPerProject, (projectId, session) => {
      deps.store.mockSessions
        .forget(projectId, session)
        .catch((err) => deps.log.warn({ err }, 'session not forgotten'));
    });
    deps.store.on('change', (projectId: string) => this.invalidate(projectId));
  }

  /** Drops a project's snapshot; the next request compiles the current configuration. */
  invalidate(projectId: string): void {
    this.generation.set(projectId, (this.generation.get(projectId) ?? 0) + 1);
    this.cache.delete(projectId);
    this.misses.delete(projectId);
    this.loading.delete(projectId);
    // its slug may have changed, or a new project may hold a slug that missed before
    for (const [slug, id] of this.slugs) if (id === projectId) this.slugs.delete(slug);
    this.slugMisses.clear();
  }

  /** Ids and versions of the cached snapshots (for the cross-process safety net). */
  cachedVersions(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [id, e] of this.cache) out.set(id, e.version);
    return out;
  }

  /** Unknown ids remembered (bounded; for tests). */
  get missCount(): number {
    return this.misses.size;
  }

  /** The project served on the mock host `<slug>.<domain>`, like `project`. */
  projectBySlug(slug: string): CompiledProject | null | Promise<CompiledProject | null> {
    const id = this.slugs.get(slug);
    if (id !== undefined) return this.project(id);
    if (slug === '' || this.slugMisses.has(slug)) return null;
    return this.deps.store.projects.idBySlug(slug).then((found) => {
      if (found === null) {
        this.slugMisses.add(slug);
        return null;
      }
      if (this.slugs.size >= MAX_MISSES) this.slugs.clear();
      this.slugs.set(slug, found);
      return this.project(found);
    });
  }

  /** The compiled project, from the cache when possible (synchronous then). */
  project(projectId: string): CompiledProject | null | Promise<CompiledProject | null> {
    const hit = this.cache.get(projectId);
    if (hit !== undefined) return hit;
    if (!PROJECT_ID.test(projectId) || this.misses.has(projectId)) return null;
    let p = this.loading.get(projectId);
    if (!p) {
      const gen = this.generation.get(projectId) ?? 0;
      p = this.deps.store.mockConfig.load(projectId).then(
        (cfg) => {
          const compiled = cfg ? compileProject(cfg) : null;
          if ((this.generation.get(projectId) ?? 0) === gen) {
            if (compiled) this.cache.set(projectId, compiled);
            else this.misses.add(projectId);
            this.loading.delete(projectId);
          }
          return compiled;
        },
        (err) => {
          if (this.loading.get(projectId) === p) this.loading.delete(projectId);
          throw err;
        },
      );
      this.loading.set(projectId, p);
    }
    return p;
  }

  /**
   * Evaluates the endpoint's rules: at once when nothing can wait (`immediate`: conditions and fixed
   * steps only), else through the step function below.
   */
  run(
    projectId: string,
    ep: CompiledEndpoint,
    ctx: MockContext,
    session: string,
    hops: number,
  ): Evaluation | Promise<Evaluation> {
    if (!ep.immediate) {
      if (session !== '') this.sessions.touch(projectId, session);
      return drive(this.evaluate(ep, ctx, session, hops));
    }
    const traces: RuleTrace[] = [];
    for (const rule of ep.rules) {
      if (!matches(rule, ctx, traces)) continue;
      // not counted: every hit gets the first step (see evaluate)
      if (rule.outcomes && rule.sequence)
        return { outcome: rule.outcomes[rule.sequence.stepFor(0)], actions: NO_ACTIONS, rules: traces };
    }
    return { outcome: DEFAULT_OUTCOME, actions: NO_ACTIONS, rules: traces };
  }

  /** Evaluates the endpoint's rules: a step function (synchronous on SQLite unless a webhook runs). */
  *evaluate(ep: CompiledEndpoint, ctx: MockContext, session: string, hops: number): Steps<Evaluation> {
    const { store } = this.deps;
    const eid = ep.id;
    let actions = NO_ACTIONS;
    const traces: RuleTrace[] = [];
    if (ep.readsStorage) ctx.storage = (yield store.hot.storage(eid, session)) as Map<string, string>;
    let deadline = 0;
    let stopped = false;

    for (const rule of ep.rules) {
      if (!matches(rule, ctx, traces)) continue;
      if (rule.actions.length > 0 && actions === NO_ACTIONS) actions = [];
      for (const a of rule.actions) {
        if (stopped) {
          actions.push({ type: a.type, ok: false, error: 'skipped: an earlier action failed with onError stop' });
          continue;
        }
        if (deadline === 0) deadline = Date.now() + ACTION_BUDGET_MS;
        const left = deadline - Date.now();
        if (left <= 0) {
          actions.push({ type: a.type, ok: false, error: 'skipped: the 10 s action budget is spent' });
          continue;
        }
        try {
          if (a.type === 'set_variable') {
            ctx.vars.set(a.name, a.value(ctx));
            actions.push(OK[a.type]);
          } else if (a.type === 'store_variable') {
            // render and write under the endpoint's storage lock, so concurrent appends lose nothing
            ctx.storage = (yield store.hot.updateStorage(eid, session, (current) => {
              ctx.storage = current;
              const value = a.value(ctx);
              checkStored(this.caps, current, a.name, value);
              return [[a.name, value]];
            })) as Map<string, string>;
            actions.push(OK[a.type]);
          } else {
            if (hops >= MAX_HOPS)
              throw new EgressError('blocked', `blocked: more than ${MAX_HOPS} hops through this service`);
            const headers: Record<string, string> = {};
            for (const [k, v] of a.headers) headers[k] = v(ctx);
            headers[HOP_HEADER] = String(hops + 1);
            const res = (yield this.deps.egress.request({
              url: a.url(ctx),
              method: a.method,
              headers,
              body: a.method === 'GET' || a.method === 'HEAD' ? undefined : a.body(ctx),
              timeoutMs: Math.min(a.timeoutMs, left),
            })) as EgressResponse;
            if (a.saveAs) ctx.vars.set(a.saveAs, { status: res.status, headers: res.headers, body: res.body });
            actions.push(OK[a.type]);
            if (a.applyResponse) {
              return {
                outcome: {
                  kind: 'applied',
                  ruleId: rule.id,
                  status: res.status,
                  body: res.body,
                  contentType: res.contentType,
                },
                actions,
                rules: traces,
              };
            }
          }
        } catch (err) {
          const timeout = err instanceof EgressError && err.kind === 'timeout';
          const known = err instanceof EgressError || err instanceof CapExceeded;
          const message = known ? err.message : 'failed: internal error';
          if (!known) this.deps.log.warn({ err }, 'action failed');
          actions.push({ type: a.type, ok: false, error: message });
          // a timeout never stops the pipeline (CONTRACT §5)
          if (a.stop && !timeout) stopped = true;
        }
      }
      if (rule.outcomes && rule.sequence) {
        const hits = rule.counted ? ((yield store.hot.hit(rule.id, session)) as number) : 1;
        return { outcome: rule.outcomes[rule.sequence.stepFor(hits - 1)], actions, rules: traces };
      }
    }
    return { outcome: DEFAULT_OUTCOME, actions, rules: traces };
  }
}
