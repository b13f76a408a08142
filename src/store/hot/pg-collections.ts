/**
 * Collection commands on PostgreSQL (hot/collections.ts's step functions over SQL): the named
 * statements, and one transaction's commands of one collection and session (`runCommands`), used by
 * postgres.ts's per-key transactions and pg-creates.ts's batches of creates.
 */
import type pg from 'pg';
import { drive } from '../../shared/steps.js';
import * as collections from './collections.js';
import { COLLECTION, numbered } from './statements.js';

/**
 * The hot path's statements are named: each pooled connection parses and plans one once, not on
 * every round trip (PostgreSQL plans it again when the table's statistics change).
 */
export interface Named {
  readonly name: string;
  readonly text: string;
}
export const named = (name: string, text: string): Named => ({ name: `mockyard_${name}`, text: numbered(text) });
export const COL = Object.fromEntries(
  Object.entries(COLLECTION).map(([k, sql]) => [k, named(`col_${k}`, sql)]),
) as Record<keyof typeof COLLECTION, Named>;
/** `append` for many items: their positions follow the last one (or the seed's, $6) in the order given. */
const APPEND_MANY: Named = {
  name: 'mockyard_col_append_many',
  text: `INSERT INTO collection_items (project_id, collection, session, item_id, ord, data, touched_at)
    SELECT $1, $2, $3, u.id, top.ord + u.n, u.data, $7
    FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS u(id, data, n),
      (SELECT GREATEST(COALESCE((SELECT ord FROM collection_items
        WHERE project_id = $1 AND collection = $2 AND session = $3 ORDER BY ord DESC LIMIT 1), 0), $6::bigint) AS ord) AS top
    ON CONFLICT DO NOTHING RETURNING item_id`,
};
export const run = (c: pg.Pool | pg.PoolClient, s: Named, values: unknown[]) =>
  c.query({ name: s.name, text: s.text, values });

/** A collection command with the collection as it was compiled when the command came. */
export interface CollectionWork {
  readonly ref: collections.CollectionRef;
  readonly cmd: collections.CollectionCommand;
}

/**
 * One transaction's collection commands, in order, on its connection, over one table: the commands
 * of a batch share their key (project, collection, session). Whether the session's copy exists
 * (and when it was last touched) is read by the first command and known to the rest.
 */
export async function runCommands(
  client: pg.PoolClient,
  works: readonly CollectionWork[],
): Promise<collections.CollectionResult[]> {
  const { projectId, name, session } = works[0].ref;
  const k = [projectId, name, session];
  const rows = async (s: Named, args: unknown[]) => (await run(client, s, args)).rows;
  let copy: collections.SessionCopy | null | undefined;
  // the count and bytes the batch's commands added, written once before the batch commits
  let items = 0;
  let bytes = 0;
  const t: collections.ItemTable = {
    copy: async () => {
      if (copy === undefined) {
        const [row] = await rows(COL.session, k);
        copy =
          row === undefined
            ? null
            : { touched: Number(row.t), base: Number(row.base), items: Number(row.items), bytes: Number(row.bytes) };
      }
      return copy;
    },
    create: async (x) => {
      await rows(COL.create, [...k, x.touched, x.base, x.items, x.bytes]);
      copy = x;
    },
    touch: async (now) => void (await rows(COL.touch, [now, ...k])),
    adjust: (i, b) => {
      items += i;
      bytes += b;
    },
    get: async (id) => {
      const [row] = await rows(COL.get, [...k, id]);
      return row === undefined ? undefined : { data: row.data, ord: Number(row.ord) };
    },
    insert: async (id, ord, data) => void (await rows(COL.insert, [...k, id, ord, data, Date.now()])),
    update: async (id, data) => void (await rows(COL.update, [data, Date.now(), ...k, id])),
    place: async (id, ord, data) => void (await rows(COL.place, [data, ord, Date.now(), ...k, id])),
    remove: async (id) => void (await rows(COL.remove, [...k, id])),
    all: async () => (await rows(COL.all, k)).map((r) => ({ id: r.id, ord: Number(r.ord), data: r.data })),
    append: async (id, data, base) =>
      (await run(client, COL.append, [...k, id, base, base, ...k, data, Date.now()])).rowCount === 1,
    appendMany: async (items, base) => {
      const args = [...k, items.map((x) => x.id), items.map((x) => x.data), base, Date.now()];
      return new Set((await run(client, APPEND_MANY, args)).rows.map((r) => r.item_id as string));
    },
  };
  // a batch of creates (the common load): one insert for all of them
  const many = await drive(collections.createMany(works, t));
  if (many !== null) {
    if (items !== 0 || bytes !== 0) await rows(COL.adjust, [items, bytes, ...k]);
    return many;
  }
  const out: collections.CollectionResult[] = [];
  // each command with its own compiled collection (its seed and id field), on the batch's table
  for (const { ref, cmd } of works) out.push(await drive(collections.execute(ref, cmd, t)));
  if (items !== 0 || bytes !== 0) await rows(COL.adjust, [items, bytes, ...k]);
  return out;
}
