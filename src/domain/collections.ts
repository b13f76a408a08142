/** Seeds of collections (docs/stateful-mocks.md): ids given or generated, no two items with one id. */
import type { CollectionOperation, HttpMethod } from './constants.js';
import { type ErrorDetail, validationError } from './errors.js';
import { withField } from './plain-objects.js';
import { templateDetails } from './template-syntax.js';
import { uuid7 } from './uuid7.js';

type Item = Record<string, unknown>;

/** Caps on a seed (the same numbers as a session's copy: store/hot/collections.ts COLLECTION_CAPS). */
export const SEED_CAPS = { items: 10_000, itemBytes: 64 * 1024, seedBytes: 1024 * 1024 } as const;

/** An item's id as its key: the id field's value as text (numbers and strings alike). */
export const idOf = (item: Readonly<Item>, idField: string): string | undefined => {
  const v = item[idField];
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
};

/** Items of a seed with their ids: a missing id gets a version-7 UUID (uuid7.ts); a duplicate or unusable id is a 400. */
export function checkSeed(seed: Item[], idField: string, at = '/seed'): Item[] {
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  if (seed.length > SEED_CAPS.items)
    throw validationError([{ path: at, message: `a seed holds at most ${SEED_CAPS.items} items` }]);
  let bytes = 2;
  seed.forEach((item, i) => {
    const size = Buffer.byteLength(JSON.stringify(item));
    bytes += size + 1;
    if (size > SEED_CAPS.itemBytes)
      details.push({ path: `${at}/${i}`, message: `an item may hold at most ${SEED_CAPS.itemBytes} bytes of JSON` });
  });
  if (bytes > SEED_CAPS.seedBytes)
    details.push({ path: at, message: `a seed may hold at most ${SEED_CAPS.seedBytes} bytes of JSON` });
  details.push(...templateDetails(seed, at));
  if (details.length > 0) throw validationError(details);
  const out = seed.map((item, i) => {
    const withId = item[idField] === undefined ? withField(item, idField, uuid7()) : item;
    const id = idOf(withId, idField);
    if (id === undefined)
      details.push({ path: `${at}/${i}/${idField}`, message: `${idField} must be a string or a number` });
    else if (seen.has(id)) details.push({ path: `${at}/${i}/${idField}`, message: `${idField} ${id} appears twice` });
    else seen.add(id);
    return withId;
  });
  if (details.length > 0) throw validationError(details);
  return out;
}

/**
 * A seed read again (`serve --file --watch`) with the ids an earlier load generated: an item without an id
 * takes the id of a previous item equal to it but for that id, unless the seed names that id itself, so
 * that an unchanged file leaves the collection, and the sessions copied from it, as they are.
 */
export function keepGeneratedIds(seed: Item[], previous: readonly Item[], idField: string): Item[] {
  if (!seed.some((item) => item[idField] === undefined)) return seed;
  const named = new Set(seed.map((item) => idOf(item, idField)));
  const free = new Map<string, unknown[]>();
  for (const item of previous) {
    const id = idOf(item, idField);
    if (id === undefined || named.has(id)) continue;
    const { [idField]: value, ...rest } = item;
    const key = JSON.stringify(rest);
    const ids = free.get(key);
    if (ids) ids.push(value);
    else free.set(key, [value]);
  }
  return seed.map((item) => {
    if (item[idField] !== undefined) return item;
    const id = free.get(JSON.stringify(item))?.shift();
    return id === undefined ? item : withField(item, idField, id);
  });
}

/** The six REST endpoints of a resource bound to a collection (`POST …/resources`, docs/stateful-mocks.md). */
export const RESOURCE: readonly (readonly [HttpMethod, string, CollectionOperation])[] = [
  ['GET', '', 'list'],
  ['POST', '', 'create'],
  ['GET', '/:id', 'get'],
  ['PUT', '/:id', 'replace'],
  ['PATCH', '/:id', 'update'],
  ['DELETE', '/:id', 'delete'],
];

/** A seed without templates, as the base of copy-on-write session copies (store/hot/collections.ts). */
export interface SeedBase {
  /** the items' ids, in seed order */
  readonly ids: readonly string[];
  /** the items as JSON text, in seed order */
  readonly raw: readonly string[];
  /** id → position */
  readonly index: ReadonlyMap<string, number>;
  /** bytes of the items' JSON together */
  readonly bytes: number;
}

/** True when a string anywhere in `v` holds a template (`{{`): such a seed is rendered per session. */
export const templated = (v: unknown): boolean =>
  typeof v === 'string'
    ? v.includes('{{')
    : Array.isArray(v)
      ? v.some(templated)
      : v !== null && typeof v === 'object' && Object.values(v).some(templated);

/** The seed as a copy-on-write base, or null when a value is a template (each session renders its own). */
export function seedBase(seed: readonly Item[], idField: string): SeedBase | null {
  if (seed.some(templated)) return null;
  const ids: string[] = [];
  const raw: string[] = [];
  const index = new Map<string, number>();
  let bytes = 0;
  for (const item of seed) {
    const id = idOf(item, idField);
    if (id === undefined || index.has(id)) continue;
    const data = JSON.stringify(item);
    index.set(id, ids.length);
    ids.push(id);
    raw.push(data);
    bytes += Buffer.byteLength(data);
  }
  return { ids, raw, index, bytes };
}

/** One collection as a session sees it. */
export interface CollectionRef {
  readonly projectId: string;
  readonly name: string;
  readonly idField: string;
  /** the seed, or a function that renders it (templates such as {{faker …}} in seed values) */
  readonly seed: readonly Item[] | (() => readonly Item[]);
  /** the seed as the base of copy-on-write session copies; null when it has templates */
  readonly base?: SeedBase | null;
  readonly session: string;
}

export type CollectionCommand =
  | { readonly op: 'list' }
  | { readonly op: 'count' }
  | { readonly op: 'get'; readonly id: string }
  | { readonly op: 'create'; readonly item: Item }
  | { readonly op: 'replace'; readonly id: string; readonly item: Item }
  | { readonly op: 'update'; readonly id: string; readonly patch: Item }
  | { readonly op: 'delete'; readonly id: string };

export type CollectionResult =
  /** the items as stored JSON text, in order (parsed only by whoever needs to) */
  | { readonly kind: 'items'; readonly raw: string[] }
  | { readonly kind: 'count'; readonly count: number }
  /** `raw`, when the command made it: the item's JSON as stored, `JSON.stringify(item)` (an answer's body as it is) */
  | { readonly kind: 'item'; readonly item: Item; readonly created?: boolean; readonly raw?: string }
  | { readonly kind: 'deleted' }
  | { readonly kind: 'missing' }
  | { readonly kind: 'conflict' }
  /** the item, or the session's copy with it, would pass a cap (COLLECTION_CAPS) */
  | { readonly kind: 'too_large'; readonly message: string };

/** What one collection holds for one session (docs/limits.md, "Collections"). */
export const COLLECTION_CAPS = {
  items: 10_000,
  /** bytes of one item as stored JSON */
  itemBytes: 64 * 1024,
  /** bytes of a session's copy (seed included) */
  sessionBytes: 10 * 1024 * 1024,
} as const;
