/**
 * A query's generated answer as a plan (docs/graphql.md): the fields it selects, collected once per
 * document and operation against the schema (fragments, aliases, type conditions, `__typename`,
 * unions and interfaces), then filled with values at the cost of walking the plan — the reference
 * executor resolves, completes and checks every field of every answer again. Only generated data
 * takes a plan: an operation that is not a query, a field bound to a collection, a directive,
 * introspection or variables the executor would refuse go through `graphql`'s `execute` as before.
 */
import type {
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  GraphQLObjectType,
  GraphQLOutputType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
} from 'graphql';
import { graphqlLib } from '../../domain/graphql.js';

/** What a selected field's value is made of. */
type Shape =
  | { readonly k: 'list'; readonly of: Shape }
  | { readonly k: 'scalar'; readonly name: string }
  | { readonly k: 'enum'; readonly values: readonly unknown[] }
  | { readonly k: 'object'; readonly name: string; readonly fields: readonly PlanField[] }
  | {
      readonly k: 'abstract';
      readonly types: readonly { readonly name: string; readonly fields: readonly PlanField[] }[];
    };

export interface PlanField {
  /** the response key (the alias, else the name) */
  readonly key: string;
  readonly name: string;
  /** null: `__typename`, whose value is the object's type name */
  readonly shape: Shape | null;
}

export interface Plan {
  readonly root: string;
  readonly fields: readonly PlanField[];
  /** the operation's variables, checked on every request as the executor would (null: none) */
  readonly variables: OperationDefinitionNode['variableDefinitions'] | null;
}

/** Makes a value of a scalar or enum field (execute.ts's generators, from the request's random source). */
export interface Makers {
  scalar(name: string, field: string): unknown;
  pick(n: number): number;
}

/** Too deep or too wide a query is left to the executor (a plan is made once, but made whole). */
const MAX_FIELDS = 5000;

class NoPlan extends Error {}

/** The plan of `doc`'s operation, or null when the executor must answer it. */
export function planQuery(
  schema: GraphQLSchema,
  doc: DocumentNode,
  operationName: string | undefined,
  bound: (type: string, field: string) => boolean,
): Plan | null {
  const g = graphqlLib();
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  const op =
    operationName === undefined
      ? ops.length === 1
        ? ops[0]
        : undefined
      : ops.find((o) => o.name?.value === operationName);
  const root = schema.getQueryType();
  if (op?.operation !== 'query' || !root) return null;
  if ((op.directives?.length ?? 0) > 0) return null;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === 'FragmentDefinition') fragments.set(d.name.value, d);
  let count = 0;

  const applies = (type: GraphQLObjectType, condition: string | undefined): boolean => {
    if (condition === undefined || condition === type.name) return true;
    const t = schema.getType(condition);
    return t !== undefined && g.isAbstractType(t) && schema.isSubType(t, type);
  };

  /** The fields `sets` select on `type`, by response key, in the executor's order. */
  const collect = (type: GraphQLObjectType, sets: readonly SelectionSetNode[]): Map<string, FieldNode[]> => {
    const out = new Map<string, FieldNode[]>();
    const seen = new Set<string>();
    const walk = (set: SelectionSetNode) => {
      for (const s of set.selections) {
        if ((s.directives?.length ?? 0) > 0) throw new NoPlan();
        if (s.kind === 'Field') {
          const key = s.alias?.value ?? s.name.value;
          const list = out.get(key);
          if (list) list.push(s);
          else out.set(key, [s]);
        } else if (s.kind === 'InlineFragment') {
          if (applies(type, s.typeCondition?.name.value)) walk(s.selectionSet);
        } else {
          const name = s.name.value;
          if (seen.has(name)) continue;
          seen.add(name);
          const f = fragments.get(name);
          if (!f) throw new NoPlan();
          if (applies(type, f.typeCondition.name.value)) walk(f.selectionSet);
        }
      }
    };
    for (const set of sets) walk(set);
    return out;
  };

  const fieldsOf = (type: GraphQLObjectType, sets: readonly SelectionSetNode[]): PlanField[] => {
    const out: PlanField[] = [];
    const defs = type.getFields();
    for (const [key, nodes] of collect(type, sets)) {
      if (++count > MAX_FIELDS) throw new NoPlan();
      const name = nodes[0].name.value;
      if (name === '__typename') {
        out.push({ key, name, shape: null });
        continue;
      }
      const def = defs[name];
      if (!def || name.startsWith('__') || bound(type.name, name)) throw new NoPlan();
      const subs = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
      out.push({ key, name, shape: shapeOf(def.type, subs) });
    }
    return out;
  };

  const shapeOf = (type: GraphQLOutputType, subs: readonly SelectionSetNode[]): Shape => {
    const t = g.getNullableType(type) as GraphQLOutputType;
    if (g.isListType(t)) return { k: 'list', of: shapeOf(t.ofType, subs) };
    if (g.isEnumType(t)) return { k: 'enum', values: t.getValues().map((v) => v.value) };
    if (g.isScalarType(t)) return { k: 'scalar', name: t.name };
    if (g.isObjectType(t)) return { k: 'object', name: t.name, fields: fieldsOf(t, subs) };
    if (g.isAbstractType(t))
      return {
        k: 'abstract',
        types: schema.getPossibleTypes(t).map((o) => ({ name: o.name, fields: fieldsOf(o, subs) })),
      };
    throw new NoPlan();
  };

  try {
    const variables = (op.variableDefinitions?.length ?? 0) > 0 ? op.variableDefinitions : null;
    return { root: root.name, fields: fieldsOf(root, [op.selectionSet]), variables };
  } catch (e) {
    if (e instanceof NoPlan) return null;
    throw e;
  }
}

function fill(fields: readonly PlanField[], typeName: string, m: Makers): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f.key] = f.shape === null ? typeName : value(f.shape, f.name, m);
  return out;
}

function value(shape: Shape, field: string, m: Makers): unknown {
  switch (shape.k) {
    case 'scalar':
      return m.scalar(shape.name, field);
    case 'enum':
      return shape.values[m.pick(shape.values.length)];
    case 'list':
      return [value(shape.of, field, m), value(shape.of, field, m), value(shape.of, field, m)];
    case 'object':
      return fill(shape.fields, shape.name, m);
    case 'abstract': {
      const t = shape.types[m.pick(shape.types.length)];
      return t ? fill(t.fields, t.name, m) : null;
    }
  }
}

/**
 * The answer's `data`, made by walking the plan; null when the request's variables are not what the
 * operation declares (the executor answers those with its errors).
 */
export function runPlan(
  schema: GraphQLSchema,
  plan: Plan,
  variables: Record<string, unknown>,
  m: Makers,
): Record<string, unknown> | null {
  if (plan.variables && graphqlLib().getVariableValues(schema, plan.variables, variables).errors) return null;
  return fill(plan.fields, plan.root, m);
}
