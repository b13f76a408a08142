/** A GraphQL endpoint's answer written (docs/graphql.md): generated data, merged with a rule step's `graphql`. */
import type { ServerResponse } from 'node:http';
import type { CompiledStep } from '../compile.js';
import type { MockContext } from '../context.js';
import type { Exchange } from '../exchange.js';
import { type AnswerNote, answerHeaders, writeAnswer } from '../respond.js';
import { answerGraphql, mergeAnswer } from './execute.js';
import { collectionRunner, type GraphqlScope, serveGraphqlSse } from './transports.js';

/** Runs and writes the answer; the status written. */
export async function writeGraphql(
  res: ServerResponse,
  scope: GraphqlScope,
  ctx: MockContext,
  step: CompiledStep | null,
  note: AnswerNote,
): Promise<number> {
  const { run, publish } = collectionRunner(scope, ctx);
  const answer = await answerGraphql(scope.gql, ctx.req, ctx, run, publish);
  const result = step?.graphql ? mergeAnswer(answer.result, step.graphql) : answer.result;
  const body = JSON.stringify(result);
  const status = step && answer.status === 200 ? step.statusCode : answer.status;
  return writeAnswer(res, status, answerHeaders([], answer.contentType, Buffer.byteLength(body)), body, note);
}

/** A GraphQL endpoint's request: `graphql-sse` (a POST accepting text/event-stream) or one JSON answer. */
export function answerGraphqlRequest(
  x: Exchange,
  scope: GraphqlScope,
  ctx: MockContext,
  step: CompiledStep | null,
): Promise<number> {
  const sse = !step && x.method === 'POST' && (x.req.headers.accept ?? '').includes('text/event-stream');
  return sse ? serveGraphqlSse(x.res, scope, ctx) : writeGraphql(x.res, scope, ctx, step, x);
}
