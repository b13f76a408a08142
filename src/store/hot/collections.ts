/**
 * Collection commands (CONTRACT §11), written once for both databases as a step function over a
 * small table interface that each dialect backs with its SQL (sqlite.ts synchronously inside the
 * group commit, postgres.ts under an advisory lock). A session's copy is made from the seed on its
 * first use; every command runs under the lock of (project, collection, session), so concurrent
 * writes are exact on any number of processes.
 */
import { randomUUID } from 'node:crypto';
import { idOf } from '../../domain/collections.js';
import type { Steps } from '../../shared/steps.js';

type Item = Record<string, unknown>;

/** One collection as a session sees it. */
export interface CollectionRef {
  readonly projectId: string;
  readonly name: string;
  readonly idField: string;
  /** the seed, or a function that renders it (templates such as {{faker …}} in seed values) */
  readonly seed: readonly Item[] | (() => readonly Item[]);
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
  | { readonly kind: 'item'; readonly item: Item; readonly created?: boolean }
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
  /** bytes of a seed as JSON */
  seedBytes: 1024 * 1024,
} as const;

const tooLarge = (data: string): CollectionResult | null =>
  Buffer.byteLength(data) > COLLECTION_CAPS.itemBytes
    ? { kind: 'too_large', message: `An item may hold at most ${COLLECTION_CAPS.itemBytes} bytes of JSON` }
    : null;

type Maybe<T> = T | Promise<T>;

/** How often a session's use of its copy is written down (idle expiry and the session cap read it). */
const TOUCH_EVERY_MS = 60_000;

/** The rows of one collection and session, as a dialect reads and writes them. */
export interface ItemTable {
  /** when the session's copy was made or last touched (ms), or null when it has none */
  materialized(): Maybe<number | null>;
  markMaterialized(): Maybe<void>;
  get(id: string): Maybe<string | undefined>;
  insert(id: string, ord: number, data: string): Maybe<void>;
  update(id: string, data: string): Maybe<void>;
  remove(id: string): Maybe<void>;
  /** adds an item after the last one; false (nothing written) when its id is taken */
  append(id: string, data: string): Maybe<boolean>;
  all(): Maybe<string[]>;
  count(): Maybe<number>;
}

/** Runs one command; yields what it waits for (plain values on SQLite, promises on PostgreSQL). */
export function* execute(ref: CollectionRef, cmd: CollectionCommand, t: ItemTable): Steps<CollectionResult> {
  const touched = (yield t.materialized()) as number | null;
  if (touched === null) {
    let ord = 0;
    const seed = typeof ref.seed === 'function' ? ref.seed() : ref.seed;
    for (const item of seed) {
      const id = idOf(item, ref.idField);
      if (id !== undefined) yield t.insert(id, ++ord, JSON.stringify(item));
    }
    yield t.markMaterialized();
  } else if (ref.session !== '' && Date.now() - touched > TOUCH_EVERY_MS) {
    // keeps the session's copy from being forgotten as idle (mock-sessions.ts), at most once a minute
    yield t.markMaterialized();
  }
  switch (cmd.op) {
    case 'list':
      return { kind: 'items', raw: (yield t.all()) as string[] };
    case 'count':
      return { kind: 'count', count: (yield t.count()) as number };
    case 'get': {
      const data = (yield t.get(cmd.id)) as string | undefined;
      return data === undefined ? { kind: 'missing' } : { kind: 'item', item: JSON.parse(data) };
    }
    case 'create': {
      const given = idOf(cmd.item, ref.idField);
      const item = given === undefined ? { ...cmd.item, [ref.idField]: randomUUID() } : cmd.item;
      const id = given ?? (item[ref.idField] as string);
      const data = JSON.stringify(item);
      const big = tooLarge(data);
      if (big) return big;
      if (((yield t.count()) as number) >= COLLECTION_CAPS.items)
        return { kind: 'too_large', message: `A collection holds at most ${COLLECTION_CAPS.items} items per session` };
      if (!((yield t.append(id, data)) as boolean)) return { kind: 'conflict' };
      return { kind: 'item', item, created: true };
    }
    case 'replace':
    case 'update': {
      const data = (yield t.get(cmd.id)) as string | undefined;
      if (data === undefined) return { kind: 'missing' };
      const current = JSON.parse(data) as Item;
      // the id stays the stored one, whatever the body says
      const base = cmd.op === 'update' ? { ...current, ...cmd.patch } : { ...cmd.item };
      const item = { ...base, [ref.idField]: current[ref.idField] };
      const next = JSON.stringify(item);
      const big = tooLarge(next);
      if (big) return big;
      yield t.update(cmd.id, next);
      return { kind: 'item', item };
    }
    case 'delete': {
      if ((yield t.get(cmd.id)) === undefined) return { kind: 'missing' };
      yield t.remove(cmd.id);
      return { kind: 'deleted' };
    }
  }
}
