/**
 * What an evaluation of an endpoint's rules reads and gives (engine.ts), and the pieces its two
 * shapes share: the plain loop and step function of engine.ts, and the acting evaluation of acting.ts.
 */
import type { ActionOutcome, RuleTrace } from '../domain/model.js';
import type { CompiledEndpoint, CompiledProject, CompiledRule, StepOutcome } from './compile.js';
import { evaluateConditions } from './conditions.js';
import type { MockContext } from './context.js';
import type { Waiter } from './ports.js';

/** Shared by evaluations that ran no action, and by the log records of requests no rule ran for
 * (never mutated). */
export const NO_ACTIONS: ActionOutcome[] = Object.freeze([]) as unknown as ActionOutcome[];

export type Outcome =
  | StepOutcome
  | { kind: 'default' }
  | { kind: 'applied'; ruleId: string; status: number; body: string; contentType: string };

export const DEFAULT_OUTCOME: Outcome = Object.freeze({ kind: 'default' });

export interface Evaluation {
  outcome: Outcome;
  actions: ActionOutcome[];
  rules: RuleTrace[];
}

/** One request's evaluation: what it reads, and what it has done so far. */
export interface Evaluating {
  readonly projectId: string;
  /** the project's collections ({{collection.NAME.count}}) */
  readonly collections: CompiledProject['collections'];
  readonly ep: CompiledEndpoint;
  readonly ctx: MockContext;
  readonly session: string;
  readonly hops: number;
}

/** Evaluates a rule's conditions and records its trace: matched, or the first condition that failed. */
export function matches(rule: CompiledRule, ctx: MockContext, traces: RuleTrace[]): boolean {
  const failed = evaluateConditions(rule.conditions, ctx);
  traces.push(failed >= 0 ? rule.failedTraces[failed] : rule.matchedTrace);
  return failed < 0;
}

/** A rule that answers with a response (its steps and their order). */
export type Responding = CompiledRule & {
  readonly outcomes: readonly StepOutcome[];
  readonly sequence: NonNullable<CompiledRule['sequence']>;
};
export const responds = (rule: CompiledRule): rule is Responding => rule.outcomes !== null && rule.sequence !== null;

/** What a responding rule answers at its `hits`-th hit (1 for a rule that is not counted). */
export const stepAt = (rule: Responding, hits: number, actions: ActionOutcome[], rules: RuleTrace[]): Evaluation => ({
  outcome: rule.outcomes[rule.sequence.stepFor(hits - 1)],
  actions,
  rules,
});

/** A counted rule whose hit is being committed: the count picks the step (an object, not a promise). */
export class CountedStep implements Waiter<number> {
  constructor(
    private readonly rule: Responding,
    private readonly traces: RuleTrace[],
    private readonly sink: Waiter<Evaluation>,
  ) {}

  resolve(hits: number): void {
    this.sink.resolve(stepAt(this.rule, hits, NO_ACTIONS, this.traces));
  }

  reject(err: unknown): void {
    this.sink.reject(err);
  }
}
