/**
 * An endpoint's rules in order (docs/api.md "Rules"): conditions, actions, the first response — for
 * every endpoint with actions. One that loads nothing first (`waits: 'acts'`, compile.ts) starts
 * here; one that reads its storage or a collection gets here after engine.ts's `evaluate` has read
 * them, as that step function's one wait. The loop is an object that steps on from where it
 * stopped, and each wait is this object handed to what waits — a storage write's group commit, an
 * action's steps (`driveInto`), the answering rule's hit counter — with no generator of its own or
 * of the action pipeline's: two fewer to make and resume a request (bench S5, a store_variable per
 * request; see docs/architecture.md).
 */
import type { RuleTrace } from '../domain/model.js';
import { type ActionDeps, ActionPipeline, isSteps } from './actions/index.js';
import type { ActionResult } from './actions/scope.js';
import type { CompiledRule } from './compile.js';
import {
  DEFAULT_OUTCOME,
  type Evaluating,
  type Evaluation,
  matches,
  NO_ACTIONS,
  type Responding,
  responds,
  stepAt,
} from './evaluation.js';
import type { Waiter } from './ports.js';
import { type Deferred, driveInto, LATER, type StepSink } from './steps.js';

export class Acting implements StepSink<unknown>, Deferred<Evaluation> {
  private readonly traces: RuleTrace[] = [];
  private pipeline: ActionPipeline | null = null;
  /** the rule being evaluated */
  private rule = 0;
  /** the next action of that rule to start; -1 before its conditions were evaluated */
  private next = -1;
  /** what is waited for: the last started action's one wait or its steps, or the answering rule's hit */
  private waiting: 'wait' | 'steps' | 'hit' = 'wait';

  /** `sink` hears the evaluation when `step` could not finish it; a step function hands its own through `into` */
  constructor(
    private readonly deps: ActionDeps,
    private readonly r: Evaluating,
    private sink: Waiter<Evaluation> | null = null,
  ) {}

  /** As a wait of a step function (engine.ts `evaluate`, after its reads): called once `step` returned null. */
  into(sink: StepSink<Evaluation>): void {
    this.sink = sink;
  }

  /** Steps on from where it stopped: the evaluation, or null when something waits (the sink hears the rest). */
  step(): Evaluation | null {
    const { ep, ctx } = this.r;
    for (; this.rule < ep.rules.length; this.rule++, this.next = -1) {
      const rule = ep.rules[this.rule];
      if (this.next < 0) {
        if (!matches(rule, ctx, this.traces)) continue;
        this.next = 0;
      }
      while (this.next < rule.actions.length) {
        const a = rule.actions[this.next++];
        this.pipeline ??= new ActionPipeline({
          deps: this.deps,
          ctx,
          projectId: this.r.projectId,
          endpointId: ep.id,
          session: this.r.session,
          hops: this.r.hops,
        });
        const run = this.pipeline.start(a);
        if (run === null) continue;
        if (!isSteps(run)) {
          this.waiting = 'wait';
          run.into(this);
          return null;
        }
        let result: ActionResult | typeof LATER;
        try {
          result = driveInto<ActionResult>(run, this);
        } catch (err) {
          this.pipeline.fail(a, err);
          continue;
        }
        if (result === LATER) {
          this.waiting = 'steps';
          return null;
        }
        this.pipeline.done(a);
        if (result) return this.applied(rule, result);
      }
      if (responds(rule)) {
        if (!rule.counted) return stepAt(rule, 1, this.outcomes(), this.traces);
        this.waiting = 'hit';
        this.deps.store.hot.hitInto(rule.id, this.r.session, this);
        return null;
      }
    }
    return { outcome: DEFAULT_OUTCOME, actions: this.outcomes(), rules: this.traces };
  }

  resolve(v: unknown): void {
    const rule = this.r.ep.rules[this.rule];
    if (this.waiting === 'hit') {
      this.end(stepAt(rule as Responding, v as number, this.outcomes(), this.traces));
      return;
    }
    (this.pipeline as ActionPipeline).done(rule.actions[this.next - 1]);
    const result = this.waiting === 'steps' ? (v as ActionResult) : undefined;
    if (result) this.end(this.applied(rule, result));
    else this.proceed();
  }

  reject(e: unknown): void {
    if (this.waiting === 'hit') {
      this.fail(e);
      return;
    }
    (this.pipeline as ActionPipeline).fail(this.r.ep.rules[this.rule].actions[this.next - 1], e);
    this.proceed();
  }

  private proceed(): void {
    let ev: Evaluation | null;
    try {
      ev = this.step();
    } catch (e) {
      this.fail(e);
      return;
    }
    if (ev !== null) this.end(ev);
  }

  private end(ev: Evaluation): void {
    (this.sink as Waiter<Evaluation>).resolve(ev);
  }

  private fail(e: unknown): void {
    (this.sink as Waiter<Evaluation>).reject(e);
  }

  private outcomes() {
    return this.pipeline?.outcomes ?? NO_ACTIONS;
  }

  private applied(rule: CompiledRule, result: Exclude<ActionResult, void>): Evaluation {
    return {
      outcome: { kind: 'applied', ruleId: rule.id, ...result.applied },
      actions: this.outcomes(),
      rules: this.traces,
    };
  }
}
