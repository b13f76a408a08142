/** A GraphQL request as conditions read it, parsed once, when first read (docs/graphql.md). */
import type { MockContext } from '../context.js';
import type { GraphqlRequestView, RequestView } from '../types.js';
import { readRequest, requestView } from './execute.js';

export function graphqlView(view: RequestView, ctx: MockContext): () => GraphqlRequestView | null {
  let parsed: GraphqlRequestView | null | undefined;
  return () => {
    if (parsed === undefined) parsed = requestView(readRequest(view, () => ctx.json()));
    return parsed;
  };
}
