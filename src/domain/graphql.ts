/**
 * GraphQL mocks' shapes (docs/graphql.md): an endpoint's schema and bindings of fields to
 * collections, and the one loader of the `graphql` library (loaded on first use, one instance for
 * the schema checks here and the runtime's execution).
 */
import { createRequire } from 'node:module';
import { Type } from '@sinclair/typebox';
import { COLLECTION_NAME } from './constants.js';

export const GRAPHQL_OPERATIONS = ['list', 'get', 'create', 'update', 'replace', 'delete'] as const;

export const GraphqlBindingSchema = Type.Object(
  {
    collection: Type.String({ pattern: COLLECTION_NAME.source }),
    operation: Type.Union(GRAPHQL_OPERATIONS.map((o) => Type.Literal(o))),
    idArg: Type.Optional(Type.String({ maxLength: 100, description: 'the argument holding the id (default id)' })),
    inputArg: Type.Optional(
      Type.String({ maxLength: 100, description: 'the argument holding the item (default input)' }),
    ),
  },
  { additionalProperties: false },
);

export const GraphqlSchemaField = Type.Object(
  {
    schema: Type.String({ minLength: 1, maxLength: 1024 * 1024, description: 'the schema in SDL' }),
    bindings: Type.Optional(
      Type.Record(
        Type.String({ pattern: '^(Query|Mutation|Subscription)\\.[_A-Za-z][_0-9A-Za-z]*$' }),
        GraphqlBindingSchema,
        {
          maxProperties: 200,
          description: '"Type.field" → a collection operation, per mock session (docs/graphql.md)',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export interface GraphqlBinding {
  collection: string;
  operation: (typeof GRAPHQL_OPERATIONS)[number];
  idArg?: string;
  inputArg?: string;
}

export interface GraphqlConfig {
  schema: string;
  bindings?: Record<string, GraphqlBinding>;
}

export type GraphqlLib = typeof import('graphql');
let lib: GraphqlLib | null = null;

/** The `graphql` library, loaded on first use (CommonJS: one instance for every caller). */
export function graphqlLib(): GraphqlLib {
  lib ??= createRequire(import.meta.url)('graphql') as GraphqlLib;
  return lib;
}

/** Why an SDL text is not a schema (with line and column), or null. */
export function schemaProblem(sdl: string): string | null {
  const g = graphqlLib();
  try {
    g.buildSchema(sdl);
    return null;
  } catch (e) {
    const err = e as { message: string; locations?: { line: number; column: number }[] };
    const at = err.locations?.[0];
    return at ? `${err.message} (line ${at.line}, column ${at.column})` : err.message;
  }
}
