/**
 * Every template helper, by name and alias: the one table behind rendering, `GET /api/templates/helpers`,
 * docs/templates.md and the editor's completion.
 */
import type { HelperSpec } from './helper-types.js';
import { ARRAY_HELPERS, VARIABLE_HELPERS } from './helpers-data.js';
import { BLOCK_HELPERS, LOGIC_HELPERS, MATH_HELPERS } from './helpers-logic.js';
import { PEER_HELPERS } from './helpers-peers.js';
import { DATE_HELPERS, RANDOM_HELPERS } from './helpers-random.js';
import { ENCODING_HELPERS, STRING_HELPERS } from './helpers-strings.js';

export type { HelperSpec } from './helper-types.js';

/** The helpers in the order of the docs' table. */
export const HELPER_TABLE: readonly HelperSpec[] = [
  ...BLOCK_HELPERS,
  ...LOGIC_HELPERS,
  ...MATH_HELPERS,
  ...STRING_HELPERS,
  ...ENCODING_HELPERS,
  ...ARRAY_HELPERS,
  ...DATE_HELPERS,
  ...RANDOM_HELPERS,
  ...VARIABLE_HELPERS,
  ...PEER_HELPERS,
];

/** Name or alias → helper. */
export const HELPERS: ReadonlyMap<string, HelperSpec> = new Map(
  HELPER_TABLE.flatMap((h) => [[h.name, h] as const, ...(h.aliases ?? []).map((a) => [a, h] as const)]),
);
