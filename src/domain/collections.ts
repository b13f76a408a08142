/** Seeds of collections (CONTRACT §11): ids given or generated, no two items with one id. */
import { randomUUID } from 'node:crypto';
import { type ErrorDetail, validationError } from '../errors.js';
import type { CollectionOperation, HttpMethod } from './constants.js';

type Item = Record<string, unknown>;

/** Caps on a seed (the same numbers as a session's copy: store/hot/collections.ts COLLECTION_CAPS). */
export const SEED_CAPS = { items: 10_000, itemBytes: 64 * 1024, seedBytes: 1024 * 1024 } as const;

/** An item's id as its key: the id field's value as text (numbers and strings alike). */
export const idOf = (item: Item, idField: string): string | undefined => {
  const v = item[idField];
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
};

/** Items of a seed with their ids: a missing id gets a UUID; a duplicate or unusable id is a 400. */
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
  if (details.length > 0) throw validationError(details);
  const out = seed.map((item, i) => {
    const withId = item[idField] === undefined ? { ...item, [idField]: randomUUID() } : item;
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

/** The six REST endpoints of a resource bound to a collection (`POST …/resources`, CONTRACT §11). */
export const RESOURCE: readonly (readonly [HttpMethod, string, CollectionOperation])[] = [
  ['GET', '', 'list'],
  ['POST', '', 'create'],
  ['GET', '/:id', 'get'],
  ['PUT', '/:id', 'replace'],
  ['PATCH', '/:id', 'update'],
  ['DELETE', '/:id', 'delete'],
];
