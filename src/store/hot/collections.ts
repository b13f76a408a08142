/**
 * Collection commands (docs/stateful-mocks.md), written once for both databases as a step function
 * over a small table interface that each dialect backs with its SQL (sqlite.ts synchronously inside
 * the group commit, postgres.ts under an advisory lock). Every command runs under the lock of
 * (project, collection, session), so concurrent writes are exact on any number of processes.
 *
 * A session's copy of a seed without templates is **copy on write**: the session's rows hold only
 * what it changed — an item replaced in place (its seed position), a seed item deleted (a tombstone:
 * empty data), an item added (after the seed) — and the seed itself is read from the compiled
 * project. Many sessions of a large seed cost storage only for what each changed. A seed with
 * templates (`{{faker …}}`) is rendered once per session and copied whole, as its values differ.
 * Each session keeps its item count and bytes, for the caps (docs/limits.md, "Collections").
 */
import {
  COLLECTION_CAPS,
  type CollectionCommand,
  type CollectionRef,
  type CollectionResult,
  idOf,
  type SeedBase,
} from '../../domain/collections.js';
import { mergedPlain, withField } from '../../domain/plain-objects.js';
import { uuid7 } from '../../domain/uuid7.js';
import type { Steps } from '../../shared/steps.js';

type Item = Record<string, unknown>;

export type { CollectionCommand, CollectionRef, CollectionResult } from '../../domain/collections.js';
export { COLLECTION_CAPS } from '../../domain/collections.js';

type Maybe<T> = T | Promise<T>;

/** How often a session's use of its copy is written down (idle expiry and the session cap read it). */
export const TOUCH_EVERY_MS = 60_000;

/** A session's copy: when it was made or last touched (ms), its base (-1: a full copy), count and bytes. */
export interface SessionCopy {
  touched: number;
  base: number;
  items: number;
  bytes: number;
}

/** A row of a session's copy. */
export interface ItemRow {
  readonly id: string;
  readonly ord: number;
  readonly data: string;
}

/** The rows of one collection and session, as a dialect reads and writes them. */
export interface ItemTable {
  /** the session's copy, or null when it has none (the same object for the commands of a batch) */
  copy(): Maybe<SessionCopy | null>;
  /** records a new copy (before any of its items) */
  create(copy: SessionCopy): Maybe<void>;
  touch(now: number): Maybe<void>;
  /** adds to the copy's count and bytes (the caller has changed the SessionCopy already) */
  adjust(items: number, bytes: number): Maybe<void>;
  get(id: string): Maybe<{ data: string; ord: number } | undefined>;
  insert(id: string, ord: number, data: string): Maybe<void>;
  update(id: string, data: string): Maybe<void>;
  /** new data and position */
  place(id: string, ord: number, data: string): Maybe<void>;
  remove(id: string): Maybe<void>;
  /**
   * adds an item after the last one and after position `base`; false (nothing written) when its id is
   * taken. `fresh`: its id was made here (a version-7 uuid), so no row can hold it.
   */
  append(id: string, data: string, base: number, fresh: boolean): Maybe<boolean>;
  /**
   * `append` for several items in one statement, in order: the ids it wrote (a taken id is skipped).
   * Optional: a dialect without it runs a batch's creates one by one.
   */
  appendMany?(items: readonly { id: string; data: string }[], base: number): Maybe<Set<string>>;
  all(): Maybe<ItemRow[]>;
}

const bytesOf = (s: string) => Buffer.byteLength(s);
const TOMBSTONE = '';

const tooLarge = (message: string): CollectionResult => ({ kind: 'too_large', message });
/** `bytes`: the item's JSON's, counted once by the caller */
const itemTooLarge = (bytes: number): CollectionResult | null =>
  bytes > COLLECTION_CAPS.itemBytes
    ? tooLarge(`An item may hold at most ${COLLECTION_CAPS.itemBytes} bytes of JSON`)
    : null;
const sessionTooLarge = (copy: SessionCopy, more: number): CollectionResult | null =>
  copy.bytes + more > COLLECTION_CAPS.sessionBytes
    ? tooLarge(`A collection holds at most ${COLLECTION_CAPS.sessionBytes} bytes of items per session`)
    : null;

/** The copy, made on first use: copy on write over a seed without templates, else the rendered seed whole. */
function* ensureCopy(ref: CollectionRef, t: ItemTable): Steps<SessionCopy> {
  const found = (yield t.copy()) as SessionCopy | null;
  const now = Date.now();
  if (found !== null) {
    // keeps the session's copy from being forgotten as idle (mock-sessions.ts), at most once a minute
    if (ref.session !== '' && now - found.touched > TOUCH_EVERY_MS) {
      yield t.touch(now);
      found.touched = now;
    }
    return found;
  }
  const base = ref.base ?? null;
  if (base !== null) {
    const copy = { touched: now, base: base.ids.length, items: base.ids.length, bytes: base.bytes };
    yield t.create(copy);
    return copy;
  }
  // the copy's row first, then its items (SQLite keys them by the row's id)
  const rows: { id: string; data: string }[] = [];
  let bytes = 0;
  const seed = typeof ref.seed === 'function' ? ref.seed() : ref.seed;
  for (const item of seed) {
    const id = idOf(item, ref.idField);
    if (id === undefined) continue;
    const data = JSON.stringify(item);
    bytes += bytesOf(data);
    rows.push({ id, data });
  }
  const copy = { touched: now, base: -1, items: rows.length, bytes };
  yield t.create(copy);
  for (let i = 0; i < rows.length; i++) yield t.insert(rows[i].id, i + 1, rows[i].data);
  return copy;
}

/** The item's current data and where it lives: a row of the copy, the seed, or nowhere. */
interface Found {
  data: string;
  /** its row, or undefined when it is the seed's untouched item */
  row: { data: string; ord: number } | undefined;
  /** its seed position (0-based) in a copy-on-write copy, else -1 */
  seedAt: number;
}

function* find(base: SeedBase | null, copy: SessionCopy, id: string, t: ItemTable): Steps<Found | null> {
  const row = (yield t.get(id)) as { data: string; ord: number } | undefined;
  const seedAt = copy.base >= 0 && base !== null ? (base.index.get(id) ?? -1) : -1;
  if (row !== undefined) return row.data === TOMBSTONE ? null : { data: row.data, row, seedAt };
  return seedAt >= 0 ? { data: base?.raw[seedAt] as string, row: undefined, seedAt } : null;
}

/** The copy's items in order: the seed with the session's rows over it, then what it added. */
function merged(base: SeedBase | null, copy: SessionCopy, rows: ItemRow[]): string[] {
  if (copy.base < 0 || base === null) return rows.map((r) => r.data);
  const n = copy.base;
  const own = new Map<string, ItemRow>();
  for (const r of rows) if (base.index.has(r.id)) own.set(r.id, r);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = own.get(base.ids[i]);
    if (r === undefined) out.push(base.raw[i]);
    else if (r.ord === i + 1 && r.data !== TOMBSTONE) out.push(r.data);
  }
  for (const r of rows) if (r.ord > n && r.data !== TOMBSTONE) out.push(r.data);
  return out;
}

/** A created item with its id (the given one, or a new version-7 uuid) and its stored text. */
function newItem(given: Item, idField: string): { id: string; item: Item; data: string; fresh: boolean } {
  const known = idOf(given, idField);
  const item = known === undefined ? withField(given, idField, uuid7()) : given;
  return { id: known ?? (item[idField] as string), item, data: JSON.stringify(item), fresh: known === undefined };
}

/** Runs one command; yields what it waits for (plain values on SQLite, promises on PostgreSQL). */
export function* execute(ref: CollectionRef, cmd: CollectionCommand, t: ItemTable): Steps<CollectionResult> {
  const copy = (yield* ensureCopy(ref, t)) as SessionCopy;
  const base = copy.base >= 0 ? (ref.base ?? null) : null;
  if (copy.base >= 0 && (base === null || base.ids.length !== copy.base)) {
    // the compiled seed is not the one the copy was written over (changed a moment ago on another
    // process): its copies are being cleared, so this session's is made again
    return { kind: 'missing' };
  }
  switch (cmd.op) {
    case 'list':
      return { kind: 'items', raw: merged(base, copy, (yield t.all()) as ItemRow[]) };
    case 'count':
      return { kind: 'count', count: copy.items };
    case 'get': {
      const found = (yield* find(base, copy, cmd.id, t)) as Found | null;
      return found === null ? { kind: 'missing' } : { kind: 'item', item: JSON.parse(found.data) };
    }
    case 'create': {
      const { id, item, data, fresh } = newItem(cmd.item, ref.idField);
      const bytes = bytesOf(data);
      const refused = itemTooLarge(bytes) ?? sessionTooLarge(copy, bytes);
      if (refused) return refused;
      if (copy.items >= COLLECTION_CAPS.items)
        return tooLarge(`A collection holds at most ${COLLECTION_CAPS.items} items per session`);
      const seedAt = base?.index.get(id);
      if (base !== null && seedAt !== undefined) {
        // a seed id: taken unless this session deleted it; created again, it goes after the rest
        const row = (yield t.get(id)) as { data: string; ord: number } | undefined;
        if (row === undefined || row.data !== TOMBSTONE) return { kind: 'conflict' };
        yield t.remove(id);
      }
      if (!((yield t.append(id, data, Math.max(0, copy.base), fresh)) as boolean)) return { kind: 'conflict' };
      copy.items += 1;
      copy.bytes += bytes;
      yield t.adjust(1, bytes);
      return { kind: 'item', item, created: true, raw: data };
    }
    case 'replace':
    case 'update': {
      const found = (yield* find(base, copy, cmd.id, t)) as Found | null;
      if (found === null) return { kind: 'missing' };
      const current = JSON.parse(found.data) as Item;
      // the id stays the stored one, whatever the body says
      const next = cmd.op === 'update' ? mergedPlain(current, cmd.patch) : cmd.item;
      const item = withField(next, ref.idField, current[ref.idField]);
      const data = JSON.stringify(item);
      const size = bytesOf(data);
      const grows = size - bytesOf(found.data);
      const refused = itemTooLarge(size) ?? sessionTooLarge(copy, grows);
      if (refused) return refused;
      if (found.row === undefined) yield t.insert(cmd.id, found.seedAt + 1, data);
      else yield t.update(cmd.id, data);
      copy.bytes += grows;
      yield t.adjust(0, grows);
      return { kind: 'item', item, raw: data };
    }
    case 'delete': {
      const found = (yield* find(base, copy, cmd.id, t)) as Found | null;
      if (found === null) return { kind: 'missing' };
      // a seed item of a copy-on-write copy leaves a tombstone at its seed position
      if (found.seedAt < 0) yield t.remove(cmd.id);
      else if (found.row === undefined) yield t.insert(cmd.id, found.seedAt + 1, TOMBSTONE);
      else yield t.place(cmd.id, found.seedAt + 1, TOMBSTONE);
      copy.items -= 1;
      copy.bytes -= bytesOf(found.data);
      yield t.adjust(-1, -bytesOf(found.data));
      return { kind: 'deleted' };
    }
  }
}

/** A create of a batch, made ready before the session's copy is read. */
export interface NewItem {
  readonly id: string;
  readonly item: Item;
  readonly data: string;
  readonly bytes: number;
  /** its id was made here (a version-7 uuid), so no row holds it yet */
  readonly fresh: boolean;
}

/**
 * The half of a batch of creates (of one collection and session) that does not depend on the
 * session's copy: each item with its id (the given one or a new uuid) and its JSON. Null when one of
 * them needs the one-by-one path: not a create, another compiled collection, an id twice in the batch
 * or of the seed, an item over the item cap.
 */
export function prepareCreates(works: readonly { ref: CollectionRef; cmd: CollectionCommand }[]): NewItem[] | null {
  const ref = works[0].ref;
  const made: NewItem[] = [];
  const ids = new Set<string>();
  for (const { ref: r, cmd } of works) {
    // the commands' compiled collection is the first's (not recompiled in between: its seed base is the
    // same object; the seed itself is a function of each request, read only to make a missing copy)
    if (cmd.op !== 'create' || r.idField !== ref.idField || r.base !== ref.base) return null;
    const { id, item, data, fresh } = newItem(cmd.item, ref.idField);
    const bytes = bytesOf(data);
    if (ids.has(id) || ref.base?.index.has(id) || itemTooLarge(bytes)) return null;
    ids.add(id);
    made.push({ id, item, data, bytes, fresh });
  }
  return made;
}

/** Whether a copy takes all of a batch's items within the caps (each checked as if all before it were written). */
export const fitsCaps = (copy: SessionCopy, made: readonly NewItem[]) =>
  copy.items + made.length <= COLLECTION_CAPS.items &&
  copy.bytes + made.reduce((n, m) => n + m.bytes, 0) <= COLLECTION_CAPS.sessionBytes;

/** The answers of a batch's creates once written: the items whose id was taken answer `conflict`. */
export function createdResults(
  made: readonly NewItem[],
  written: ReadonlySet<string>,
): { results: CollectionResult[]; bytes: number } {
  let bytes = 0;
  const results = made.map(({ id, item, data, bytes: b }): CollectionResult => {
    if (!written.has(id)) return { kind: 'conflict' };
    bytes += b;
    return { kind: 'item', item, created: true, raw: data };
  });
  return { results, bytes };
}

/**
 * A batch of creates of one collection and session (the commands of one transaction) as one insert,
 * when the table can (`appendMany`): each item checked against the caps as if all before it were
 * written, then one statement, and the items whose id was taken answer `conflict`. Null — nothing
 * written but the session's copy — when one of them needs the one-by-one path (`prepareCreates`), or
 * a cap is reached (a conflict earlier could change that answer).
 */
export function* createMany(
  works: readonly { ref: CollectionRef; cmd: CollectionCommand }[],
  t: ItemTable,
  fewest = 2,
): Steps<CollectionResult[] | null> {
  if (!t.appendMany || works.length < Math.max(1, fewest)) return null;
  const made = prepareCreates(works);
  if (made === null) return null;
  const ref = works[0].ref;
  const copy = (yield* ensureCopy(ref, t)) as SessionCopy;
  const base = copy.base >= 0 ? (ref.base ?? null) : null;
  if (copy.base >= 0 && (base === null || base.ids.length !== copy.base)) return null;
  if (!fitsCaps(copy, made)) return null;
  const written = (yield t.appendMany(made, Math.max(0, copy.base))) as Set<string>;
  const { results, bytes } = createdResults(made, written);
  copy.items += written.size;
  copy.bytes += bytes;
  yield t.adjust(written.size, bytes);
  return results;
}
