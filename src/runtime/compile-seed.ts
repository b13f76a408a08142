/** A collection's seed as the runtime uses it (docs/stateful-mocks.md): templated values rendered per new session copy. */
import { type SeedBase, seedBase, templated } from '../domain/collections.js';
import { compileTemplate, type Template, usesFaker } from './template.js';
import type { EvalContext } from './types.js';

export interface CompiledCollection {
  readonly idField: string;
  readonly seed: readonly Record<string, unknown>[];
  /** the seed with its templates rendered for this request (the seed itself when it has none) */
  readonly render: (ctx: EvalContext) => readonly Record<string, unknown>[];
  /** the seed as the base of copy-on-write session copies (null when it has templates), made on first use */
  readonly base: () => SeedBase | null;
  /**
   * the operations (`create`, `update`, …) a GraphQL subscription of the project is bound to
   * (docs/graphql.md): only those writes are published to sockets, here and on the other processes
   */
  readonly subscribed: ReadonlySet<string>;
}

/** `seedBase` of the seed, made once when first asked for. */
export function lazyBase(seed: readonly Record<string, unknown>[], idField: string): () => SeedBase | null {
  let made: SeedBase | null | undefined;
  return () => {
    if (made === undefined) made = seedBase(seed, idField);
    return made;
  };
}

/** True when a string anywhere in the seed calls faker. */
export function seedUsesFaker(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('{{') && usesFaker(v);
  if (Array.isArray(v)) return v.some(seedUsesFaker);
  return v !== null && typeof v === 'object' && Object.values(v).some(seedUsesFaker);
}

/** A seed whose string values may be templates (`{{faker "person.firstName"}}`): rendered per new copy. */
export function compileSeed(seed: readonly Record<string, unknown>[]): CompiledCollection['render'] {
  if (!seed.some(templated)) return () => seed;
  const cache = new Map<string, Template>();
  const render = (v: unknown, ctx: EvalContext): unknown => {
    if (typeof v === 'string') {
      if (!v.includes('{{')) return v;
      let t = cache.get(v);
      if (!t) {
        t = compileTemplate(v);
        cache.set(v, t);
      }
      return t(ctx);
    }
    if (Array.isArray(v)) return v.map((x) => render(x, ctx));
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, render(x, ctx)]));
    return v;
  };
  return (ctx) => seed.map((item) => render(item, ctx) as Record<string, unknown>);
}
