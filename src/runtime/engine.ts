/**
 * Request → outcome, with the store, the egress client and the clock injected. Walks the
 * endpoint's active rules in priority order (SPEC §1): conditions, then actions, then the first
 * response wins; else the endpoint's default. Keeps one compiled snapshot per project, swapped
 * whole when a change arrives, so a request sees one consistent version from start to end.
 */
import type { Logger } from 'pino';
import type { ActionOutcome, RuleTrace } from '../domain/model.js';
import type { Store } from '../store/store.js';
import type { CompiledEndpoint, CompiledProject, CompiledRule, StepOutcome } from './compile.js';
import { compileProject } from './compile.js';
import { evaluateConditions } from './conditions.js';
import type { MockContext } from './context.js';
import { type Egress, EgressError, type EgressResponse, HOP_HEADER } from './egress.js';
import { drive, type Steps } from './steps.js';

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
  store: Store;
  egress: Egress;
  log: Logger;
}

type CacheEntry = CompiledProject | { missingUntil: number };
const isMissing = (e: CacheEntry): e is { missingUntil: number } => 'missingUntil' in e;

export class Engine {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly loading = new Map<string, Promise<CompiledProject | null>>();
  private readonly generation = new Map<string, number>();

  constructor(private readonly deps: EngineDeps) {
    deps.store.on('change', (projectId: string) => this.invalidate(projectId));
  }

  /** Drops a project's snapshot; the next request compiles the current configuration. */
  invalidate(projectId: string): void {
    this.generation.set(projectId, (this.generation.get(projectId) ?? 0) + 1);
    this.cache.delete(projectId);
    this.loading.delete(projectId);
  }

  /** Ids and versions of the cached snapshots (for the cross-process safety net). */
  cachedVersions(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [id, e] of this.cache) if (!isMissing(e)) out.set(id, e.version);
    return out;
  }

  /** The compiled project, from the cache when possible (synchronous then). */
  project(projectId: string): CompiledProject | null | Promise<CompiledProject | null> {
    const hit = this.cache.get(projectId);
    if (hit !== undefined) {
      if (!isMissing(hit)) return hit;
      if (hit.missingUntil > Date.now()) return null;
    }
    let p = this.loading.get(projectId);
    if (!p) {
      const gen = this.generation.get(projectId) ?? 0;
      p = this.deps.store.loadProjectConfig(projectId).then(
        (cfg) => {
          const compiled = cfg ? compileProject(cfg) : null;
          if ((this.generation.get(projectId) ?? 0) === gen) {
            this.cache.set(projectId, compiled ?? { missingUntil: Date.now() + 1000 });
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
  run(ep: CompiledEndpoint, ctx: MockContext, session: string, hops: number): Evaluation | Promise<Evaluation> {
    if (!ep.immediate) return drive(this.evaluate(ep, ctx, session, hops));
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
    if (ep.readsStorage) ctx.storage = (yield store.hotStorage(eid, session)) as Map<string, string>;
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
            ctx.storage = (yield store.hotUpdateStorage(eid, session, (current) => {
              ctx.storage = current;
              return [[a.name, a.value(ctx)]];
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
          const message = err instanceof EgressError ? err.message : 'failed: internal error';
          if (!(err instanceof EgressError)) this.deps.log.warn({ err }, 'action failed');
          actions.push({ type: a.type, ok: false, error: message });
          // a timeout never stops the pipeline (CONTRACT §5)
          if (a.stop && !timeout) stopped = true;
        }
      }
      if (rule.outcomes && rule.sequence) {
        const hits = rule.counted ? ((yield store.hotHit(rule.id, session)) as number) : 1;
        return { outcome: rule.outcomes[rule.sequence.stepFor(hits - 1)], actions, rules: traces };
      }
    }
    return { outcome: DEFAULT_OUTCOME, actions, rules: traces };
  }
}
