/**
 * Request → outcome, with the store, the egress client, the caps and the clock injected. Walks the
 * endpoint's active rules in priority order (docs/api.md "Rules"): conditions, then actions (actions/), then
 * the first response wins; else the endpoint's default.
 *
 * How an endpoint is evaluated depends on what it can wait for (`waits`, compile.ts): `never` (no
 * storage to read, no rule with an action or a counter) is a plain loop, answered at once; `hits`
 * (counters but no storage and no actions, as a sequence) is the same loop, and the matching rule's
 * hit counter is the one wait (a waiter object handed to the group commit, no promise). Any other
 * endpoint goes through acting.ts, the same loop with the action pipeline as an object that steps on
 * where it stopped: at once when it loads nothing first (`acts`), else (`steps`: a storage read, a
 * collection's count or items) after `evaluate`, a step function (steps.ts) that reads them —
 * synchronously on SQLite, waiting for PostgreSQL — and then waits for the rules as one wait.
 */
import type { Logger } from 'pino';
import { type Caps, DEFAULT_CAPS } from '../domain/constants.js';
import type { RuleTrace } from '../domain/model.js';
import { Acting } from './acting.js';
import type { ActionDeps } from './actions/index.js';
import { type Egress, EgressError } from './egress.js';
import {
  CountedStep,
  DEFAULT_OUTCOME,
  type Evaluating,
  type Evaluation,
  matches,
  NO_ACTIONS,
  responds,
  stepAt,
} from './evaluation.js';
import type { RuntimeStore, Waiter } from './ports.js';
import { ProjectCache } from './project-cache.js';
import { SessionTracker } from './sessions.js';
import { driveInto, LATER, type Steps } from './steps.js';

export { ACTION_BUDGET_MS, MAX_HOPS } from './actions/index.js';
export { type Evaluating, type Evaluation, NO_ACTIONS, type Outcome } from './evaluation.js';

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

export interface EngineDeps {
  store: RuntimeStore;
  egress: Egress;
  log: Logger;
  /** output and state caps (docs/limits.md); the defaults when not given */
  caps?: Caps;
  /** ms since epoch (tests inject a clock) */
  now?: () => number;
  /** where the `broadcast` action sends (the WebSocket hub, docs/websocket.md) */
  channels?: ActionDeps['channels'];
}

export class Engine {
  /** compiled snapshots by project id and mock-host label */
  readonly projects: ProjectCache;
  /** the sessions of each project, least recently used first (docs/limits.md) */
  readonly sessions: SessionTracker;
  private readonly actionDeps: ActionDeps;

  constructor(deps: EngineDeps) {
    const caps = deps.caps ?? DEFAULT_CAPS;
    const now = deps.now ?? Date.now;
    this.actionDeps = { store: deps.store, egress: deps.egress, log: deps.log, caps, now, channels: deps.channels };
    this.projects = new ProjectCache(deps.store, now);
    this.sessions = new SessionTracker(caps.sessionsPerProject, (projectId, session) => {
      deps.store.mockSessions
        .forget(projectId, session)
        .catch((err) => deps.log.warn({ err }, 'session not forgotten'));
    });
  }

  /**
   * Evaluates the endpoint's rules: the evaluation when it is done at once, else null, and `sink`
   * gets it (or the error) later. By a plain loop when nothing but a hit counter can wait (see
   * `waits`): the loop is `evaluate` without the storage, the counts and the actions, which such an
   * endpoint does not have, and a counted rule's hit is handed to the group commit with no promise
   * (the sequence scenario: one object per request instead of four promises). With actions, by the
   * same loop as an object (acting.ts): at once when nothing is to be loaded, else after the step
   * function below has loaded it.
   */
  run(r: Evaluating, sink: Waiter<Evaluation>): Evaluation | null {
    const { ep, ctx, session } = r;
    if (ep.waits !== 'never' && session !== '') this.sessions.touch(r.projectId, session);
    if (ep.waits === 'acts') return new Acting(this.actionDeps, r, sink).step();
    if (ep.waits === 'steps') {
      const ev = driveInto(this.evaluate(r), sink);
      return ev === LATER ? null : ev;
    }
    const traces: RuleTrace[] = [];
    for (const rule of ep.rules) {
      if (!matches(rule, ctx, traces)) continue;
      if (!responds(rule)) continue;
      // not counted: every hit gets the first step
      if (!rule.counted) return stepAt(rule, 1, NO_ACTIONS, traces);
      this.actionDeps.store.hot.hitInto(rule.id, session, new CountedStep(rule, traces, sink));
      return null;
    }
    return { outcome: DEFAULT_OUTCOME, actions: NO_ACTIONS, rules: traces };
  }

  /**
   * Loads what the endpoint's rules read, then evaluates them (acting.ts): a step function,
   * synchronous on SQLite unless something waits.
   */
  *evaluate(r: Evaluating): Steps<Evaluation> {
    const { ep, ctx, session } = r;
    const { hot } = this.actionDeps.store;
    if (ep.readsStorage)
      ctx.storage = (yield hot.storage({ kind: 'endpoint', id: ep.id }, session)) as Map<string, string>;
    if (ep.counts.length > 0 || ep.lists.length > 0) {
      const counts = new Map<string, number>();
      const items = new Map<string, readonly unknown[]>();
      const ref = (name: string) => {
        const def = r.collections.get(name);
        if (!def) return null;
        return {
          projectId: r.projectId,
          name,
          idField: def.idField,
          seed: () => def.render(ctx),
          base: def.base(),
          session,
        };
      };
      for (const name of ep.counts) {
        const at = ref(name);
        if (!at) continue;
        const res = (yield hot.collection(at, { op: 'count' })) as { kind: string; count?: number };
        if (res.count !== undefined) counts.set(name, res.count);
      }
      for (const name of ep.lists) {
        const at = ref(name);
        if (!at) continue;
        const res = (yield hot.collection(at, { op: 'list' })) as { kind: string; raw?: string[] };
        if (res.raw !== undefined)
          items.set(
            name,
            res.raw.map((text) => JSON.parse(text) as unknown),
          );
      }
      ctx.collectionCounts = counts;
      ctx.collectionItems = items;
    }
    if (ep.readsProjectStorage)
      ctx.projectStorage = (yield hot.storage({ kind: 'project', id: r.projectId }, session)) as Map<string, string>;
    // then the rules, as for an endpoint that loads nothing (acting.ts): done at once, or one wait
    const acting = new Acting(this.actionDeps, r);
    return acting.step() ?? ((yield acting) as Evaluation);
  }
}
