/** The shape of a template helper (docs/templates.md, `GET /api/templates/helpers`). */
import type { RenderState } from './values.js';

export type HelperFamily =
  | 'blocks'
  | 'logic'
  | 'math'
  | 'strings'
  | 'encoding'
  | 'arrays'
  | 'dates'
  | 'random'
  | 'variables'
  | 'request'
  | 'json';

export type Hash = Readonly<Record<string, unknown>>;

export type HelperFn = (args: readonly unknown[], hash: Hash, st: RenderState) => unknown;

export interface HelperSpec {
  readonly name: string;
  readonly family: HelperFamily;
  /** how it is written: `add a b…` */
  readonly signature: string;
  readonly description: string;
  /** a template using it */
  readonly example: string;
  /** what `example` renders with an empty request (POST /, no body, fixed clock 2024-01-15T12:00:00Z); absent when random */
  readonly output?: string;
  /** gives a different value per call (unless X-Mockyard-Seed is sent) */
  readonly random?: boolean;
  /** a block helper (`{{#name}}…{{/name}}`): run by the compiler, `fn` unused */
  readonly block?: boolean;
  /** the same arguments always give the same value: folded at compile time when they are constants */
  readonly pure?: boolean;
  /** other names the same helper answers to (Mockoon's, WireMock's) */
  readonly aliases?: readonly string[];
  readonly fn: HelperFn;
}

/** The helpers' fixed clock in the table's examples (docs/templates.md). */
export const EXAMPLE_NOW = Date.UTC(2024, 0, 15, 12, 0, 0);

export const noop: HelperFn = () => undefined;

/** A pure helper of the given family (see HelperSpec). */
export function pure(
  family: HelperFamily,
  name: string,
  signature: string,
  description: string,
  example: string,
  output: string,
  fn: HelperFn,
  aliases?: readonly string[],
): HelperSpec {
  return { name, family, signature, description, example, output, pure: true, fn, aliases };
}
