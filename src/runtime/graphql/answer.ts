/** A GraphQL endpoint's answer written (docs/graphql.md): generated data, merged with a rule step's `graphql`. */
import type { ServerResponse } from 'node:http';
import type { CompiledProject, CompiledStep } from '../compile.js';
import type { MockContext } from '../context.js';
import type { HotState } from '../ports.js';
import { type AnswerNote, answerHeaders, writeAnswer } from '../respond.js';
import { answerGraphql, type CompiledGraphql, mergeAnswer, type RunCollection } from './execute.js';

/** Runs and writes the answer; the status written. */
export async function writeGraphql(
  res: ServerResponse,
  gql: CompiledGraphql,
  project: CompiledProject,
  ctx: MockContext,
  session: string,
  hot: HotState,
  step: CompiledStep | null,
  note: AnswerNote,
): Promise<number> {
  const run: RunCollection = (name, cmd) => {
    const def = project.collections.get(name);
    if (!def) return Promise.resolve({ kind: 'missing' });
    const ref = {
      projectId: project.id,
      name,
      idField: def.idField,
      seed: () => def.render(ctx),
      base: def.base(),
      session,
    };
    return hot.collection(ref, cmd);
  };
  const answer = await answerGraphql(gql, ctx.req, ctx, run);
  const result = step?.graphql ? mergeAnswer(answer.result, step.graphql) : answer.result;
  const body = JSON.stringify(result);
  const status = step && answer.status === 200 ? step.statusCode : answer.status;
  return writeAnswer(res, status, answerHeaders([], answer.contentType, Buffer.byteLength(body)), body, note);
}
