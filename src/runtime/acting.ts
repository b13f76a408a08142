/**
 * The evaluation of an endpoint whose rules have actions but that loads nothing first (`waits:
 * 'acts'`, compile.ts): engine.ts's `evaluate` written as an object that steps on from where it
 * stopped. Each wait is this object handed to what waits — a storage write's group commit, an
 * action's steps (`driveInto`), the answering rule's hit counter — with no step function of its own
 * and none for the action pipeline: two generators fewer to make and resume a request (bench S5,
 * a store_variable per request; see docs/architecture.md). Same order, outcomes and traces as
 * `evaluate`, whose loop this is.
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
import { driveInto, LATER, type StepSink } from './steps.js';

export class Acting implements StepSink<unknown> {
  private readonly traces: RuleTrace[] = [];
  private pipeline: ActionPipeline | null = null;
  /** the rule being evaluated */
  private rule = 0;
  /** the next action of that rule to start; -1 before its conditions were evaluated */
  private next = -1;
  /** what is waited for: the last started action's one wait or its steps, or the answering rule's hit */
  private waiting: 'wait' | 'steps' | 'hit' = 'wait';

  constructor(
    private readonly deps: ActionDeps,
    private readonly r: Evaluating,
    private readonly sink: Waiter<Evaluation>,
  ) {}

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
      this.sink.resolve(stepAt(rule as Responding, v as number, this.outcomes(), this.traces));
      return;
    }
    (this.pipeline as ActionPipeline).done(rule.actions[this.next - 1]);
    const result = this.waiting === 'steps' ? (v as ActionResult) : undefined;
    if (result) this.sink.resolve(this.applied(rule, result));
    else this.proceed();
  }

  reject(e: unknown): void {
    if (this.waiting === 'hit') {
      this.sink.reject(e);
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
      this.sink.reject(e);
      return;
    }
    if (ev !== null) this.sink.resolve(ev);
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
