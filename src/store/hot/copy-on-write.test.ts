/**
 * Copy-on-write session copies answer exactly as full copies do: random command sequences run
 * against both over an in-memory table with the SQL's semantics, and every answer, list and count
 * must be the same — while the copy-on-write table holds only what the session changed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seedBase } from '../../domain/collections.js';
import { drive } from '../../shared/steps.js';
import {
  COLLECTION_CAPS,
  type CollectionCommand,
  type CollectionRef,
  type CollectionResult,
  execute,
  type ItemRow,
  type ItemTable,
  type SessionCopy,
} from './collections.js';

/** One session's rows in memory, as the statements of statements.ts treat them. */
function memoryTable() {
  const rows = new Map<string, { ord: number; data: string }>();
  // the session row as a database keeps it: read fresh by each command, changed only by `adjust`
  let stored: SessionCopy | null = null;
  const t: ItemTable = {
    copy: () => (stored === null ? null : { ...stored }),
    create: (x) => {
      stored = { ...x };
    },
    touch: () => {},
    adjust: (items, bytes) => {
      if (stored === null) throw new Error('adjust before create');
      stored.items += items;
      stored.bytes += bytes;
    },
    get: (id) => rows.get(id),
    insert: (id, ord, data) => {
      if (rows.has(id)) throw new Error(`duplicate ${id}`);
      rows.set(id, { ord, data });
    },
    update: (id, data) => {
      const r = rows.get(id);
      if (r) r.data = data;
    },
    place: (id, ord, data) => {
      if (rows.has(id)) rows.set(id, { ord, data });
    },
    remove: (id) => void rows.delete(id),
    append: (id, data, base) => {
      if (rows.has(id)) return false;
      const last = Math.max(0, ...[...rows.values()].map((r) => r.ord));
      rows.set(id, { ord: Math.max(last, base) + 1, data });
      return true;
    },
    all: () =>
      [...rows.entries()].map(([id, r]): ItemRow => ({ id, ord: r.ord, data: r.data })).sort((a, b) => a.ord - b.ord),
  };
  return { t, rows, copy: () => stored };
}

const SEED = [
  { id: 1, name: 'ada' },
  { id: 2, name: 'lin' },
  { id: 3, name: 'bo' },
  { id: 'x', name: 'str' },
];

const ids = fc.constantFrom('1', '2', '3', 'x', '4', 'new');
const command: fc.Arbitrary<CollectionCommand> = fc.oneof(
  fc.constant({ op: 'list' } as const),
  fc.constant({ op: 'count' } as const),
  ids.map((id) => ({ op: 'get', id }) as const),
  ids.map((id) => ({ op: 'delete', id }) as const),
  fc
    .tuple(fc.option(fc.constantFrom(1, 2, 3, 4, 'x', 'new'), { nil: undefined }), fc.string({ maxLength: 4 }))
    .map(
      ([id, name]) =>
        ({ op: 'create', item: id === undefined ? { name, id: `g${name.length}` } : { id, name } }) as const,
    ),
  fc.tuple(ids, fc.string({ maxLength: 4 })).map(([id, name]) => ({ op: 'replace', id, item: { name } }) as const),
  fc.tuple(ids, fc.string({ maxLength: 4 })).map(([id, v]) => ({ op: 'update', id, patch: { v } }) as const),
);

const run = (ref: CollectionRef, cmd: CollectionCommand, t: ItemTable) =>
  drive(execute(ref, cmd, t)) as CollectionResult;

describe('collection copies', () => {
  const ref = (cow: boolean): CollectionRef => ({
    projectId: 'p',
    name: 'c',
    idField: 'id',
    seed: SEED,
    base: cow ? seedBase(SEED, 'id') : null,
    session: 's',
  });

  it('copy on write answers every command sequence as a full copy does', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 30 }), (cmds) => {
        const full = memoryTable();
        const cow = memoryTable();
        for (const cmd of cmds) {
          const a = run(ref(false), cmd, full.t);
          const b = run(ref(true), cmd, cow.t);
          expect(b).toEqual(a);
          expect(cow.copy()?.items).toBe(full.copy()?.items);
          expect(cow.copy()?.bytes).toBe(full.copy()?.bytes);
        }
        const list = run(ref(true), { op: 'list' }, cow.t) as { raw: string[] };
        expect(cow.copy()?.items).toBe(list.raw.length);
      }),
      { numRuns: 300 },
    );
  });

  it('a copy-on-write session holds rows only for what it changed', () => {
    const cow = memoryTable();
    expect(run(ref(true), { op: 'list' }, cow.t)).toEqual({ kind: 'items', raw: SEED.map((x) => JSON.stringify(x)) });
    expect(cow.rows.size).toBe(0);
    run(ref(true), { op: 'update', id: '2', patch: { v: 1 } }, cow.t);
    run(ref(true), { op: 'delete', id: '3' }, cow.t);
    run(ref(true), { op: 'create', item: { id: 9 } }, cow.t);
    expect(cow.rows.size).toBe(3);
    const list = run(ref(true), { op: 'list' }, cow.t) as { raw: string[] };
    expect(list.raw.map((d) => JSON.parse(d).id)).toEqual([1, 2, 'x', 9]);
  });

  it('caps: 64 KiB an item, 10 MiB a session', () => {
    const cow = memoryTable();
    const big = { id: 'big', blob: 'x'.repeat(COLLECTION_CAPS.itemBytes) };
    expect(run(ref(true), { op: 'create', item: big }, cow.t).kind).toBe('too_large');
    const chunk = 'y'.repeat(60 * 1024);
    let refused: CollectionResult | null = null;
    for (let i = 0; i < 200 && refused === null; i++) {
      const r = run(ref(true), { op: 'create', item: { id: `c${i}`, chunk } }, cow.t);
      if (r.kind === 'too_large') refused = r;
    }
    expect(refused).toMatchObject({ kind: 'too_large', message: expect.stringMatching(/bytes of items per session/) });
    expect(cow.copy()?.bytes).toBeLessThanOrEqual(COLLECTION_CAPS.sessionBytes);
  });
});
