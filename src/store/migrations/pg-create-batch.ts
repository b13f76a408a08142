/**
 * `mockyard_create_batch`, PostgreSQL's one round trip for a batch of collection creates
 * (store/hot/pg-creates.ts): in one statement — its own transaction — it takes the advisory locks of
 * every collection and session of the batch (in hash order, as every batch does), reads each
 * session's copy, and for each one whose creates fit (the copy exists, was written over the seed the
 * process compiled, and stays within the item and byte caps with all of them) inserts the items after
 * its last position, skipping ids already taken, and adds what it wrote to the copy's count, bytes
 * and last position (touching it when the last touch is older than `touch_every`). It returns a row
 * per item written (group, id) and a row (group, NULL) per group it left alone, for the caller to run
 * command by command.
 *
 * Two statements run inside: the locks, then one query for every group at once, which sees every
 * write committed before the locks were granted.
 *
 * Arguments, one entry per group (collection and session): lock keys, project ids, collections,
 * sessions, item counts, item bytes, the compiled seed's length (-1: none); one entry per item: its
 * group (1-based), id, JSON and bytes; then now (ms), the caps and the touch interval (ms).
 *
 * Migration 0014 made it read each session's copy and its last position (one step down the order
 * index, which reads the whole last leaf page of the session's items) in a loop, two queries a group;
 * migration 0017 (`LAST_ORD`) keeps the last position on the copy's row, as SQLite does, and
 * replaces the function with this one, whose arguments and answers are the same: a process of the
 * version before calls it unchanged. Its other inserts (command by command, which read the last
 * position from the order index) keep the column right through a statement trigger: every insert
 * into the items raises its copy's last position to the largest it wrote (the batch has already,
 * so the trigger's update finds nothing to change). Items are only ever inserted after the last
 * position or at a seed position (at most the copy's `base`), and moved only to a seed position.
 *
 * Migration 0018 adds a second form with one more argument, whether each item's id was made by the
 * process (`fresh`, a version-7 uuid no row holds): those items go in by a plain insert, the others
 * with `ON CONFLICT DO NOTHING`, whose check before each insert is one more walk down the primary
 * key (about an eighth of a batch's backend CPU, bench/README.md). This version calls that form; the
 * first stays for processes of the version before.
 *
 * Migration 0019 replaces both (same arguments and answers): a batch of only made ids inserts them
 * without returning the rows and joining them back to what it asked (every one goes in or the
 * statement fails, so the groups' counts, bytes and last positions are what the caller sent), and
 * every form marks its transaction so that the trigger, whose update would find nothing to raise,
 * returns at once: about a fifth less of the backend's CPU a create (bench/README.md).
 *
 * Migration 0020 replaces both once more with `SET enable_seqscan = off`: a connection keeps the
 * plan of the function's query, and one made while the copies' table was small joined it by reading
 * every row (a hash join over a sequential scan), which stayed the plan as the table grew — 65–70 ms
 * a call at 200,000 copies, against 2–3 with the copies read through their key.
 */
/**
 * Set, for its own transaction, while the batch function's query runs: its inserts raise the last
 * positions themselves, so the trigger's update has nothing to do (migration 0019).
 */
const IN_BATCH = 'mockyard.in_create_batch';

/** How the batch query inserts its items: all checked for a taken id, none, or by `fresh`. */
type Insertion = 'checked' | 'plain' | 'by-fresh';

const INSERT = `INSERT INTO collection_items (project_id, collection, session, item_id, ord, data, touched_at)
      SELECT u.p, u.c, u.s, u.id, u.ord, u.data, now_ms FROM u`;
const RETURNING = `RETURNING collection_items.project_id AS p, collection_items.collection AS c,
        collection_items.session AS s, collection_items.item_id AS id`;
/** What a batch learns of the items it wrote: their rows (`got`) and each group's sums (`counted`). */
const WRITTEN = `got AS (
    SELECT u.g, u.id, u.len, u.ord FROM u JOIN ins ON ins.p = u.p AND ins.c = u.c AND ins.s = u.s AND ins.id = u.id
  ), counted AS (
    SELECT ok.g, ok.p, ok.c, ok.s, count(got.id) AS items, coalesce(sum(got.len), 0) AS bytes,
        coalesce(max(got.ord), 0) AS last
      FROM ok LEFT JOIN got ON got.g = ok.g GROUP BY ok.g, ok.p, ok.c, ok.s
  )`;
const inserts: Record<Insertion, string> = {
  checked: `ins AS (
    ${INSERT} ON CONFLICT DO NOTHING ${RETURNING}
  ), ${WRITTEN}`,
  // every item goes in (or the statement fails), so what it wrote is what it was asked: no rows
  // returned and joined back, the sums are the group's own (migration 0019)
  plain: `ins AS (
    ${INSERT}
  ), got AS (
    SELECT u.g, u.id FROM u
  ), counted AS (
    SELECT ok.g, ok.p, ok.c, ok.s, ok.n AS items, ok.b AS bytes, ok.top + ok.n AS last FROM ok
  )`,
  'by-fresh': `made AS (
    ${INSERT} WHERE u.fresh ${RETURNING}
  ), given AS (
    ${INSERT} WHERE u.fresh IS NOT TRUE ON CONFLICT DO NOTHING ${RETURNING}
  ), ins AS (
    SELECT * FROM made UNION ALL SELECT * FROM given
  ), ${WRITTEN}`,
};

/** The batch's one query (after its locks), inserting its items as told. */
const batchQuery = (insertion: Insertion) => `RETURN QUERY
  WITH k AS (
    SELECT k.g::int AS g, k.p, k.c, k.s, k.n, k.b, k.seed
      FROM unnest(ps, cs, ss, ns, bs, seeds) WITH ORDINALITY AS k(p, c, s, n, b, seed, g)
  ), ok AS (
    SELECT k.g, k.p, k.c, k.s, k.n, k.b, greatest(s.last_ord, s.base, 0) AS top
      FROM k JOIN collection_sessions s ON s.project_id = k.p AND s.collection = k.c AND s.session = k.s
      WHERE (s.base < 0 OR s.base = k.seed) AND s.items + k.n <= max_items AND s.bytes + k.b <= max_bytes
  ), u AS (
    SELECT ok.g, ok.p, ok.c, ok.s, v.id, v.data, v.len, v.fresh,
        ok.top + row_number() OVER (PARTITION BY v.g ORDER BY v.n) AS ord
      FROM unnest(ig, ids, datas, lens, ${insertion === 'checked' ? 'NULL::boolean[]' : 'fresh'})
        WITH ORDINALITY AS v(g, id, data, len, fresh, n)
      JOIN ok ON ok.g = v.g
  ), ${inserts[insertion]}, adjusted AS (
    UPDATE collection_sessions AS cs0 SET items = cs0.items + counted.items, bytes = cs0.bytes + counted.bytes,
        last_ord = greatest(cs0.last_ord, counted.last), touched_at = CASE WHEN cs0.session <> '' AND now_ms - cs0.touched_at > touch_every
          THEN now_ms ELSE cs0.touched_at END
      FROM counted
      WHERE cs0.project_id = counted.p AND cs0.collection = counted.c AND cs0.session = counted.s
  )
  SELECT got.g, got.id FROM got
  UNION ALL
  SELECT k.g, NULL::text FROM k WHERE NOT EXISTS (SELECT 1 FROM ok WHERE ok.g = k.g);`;

/**
 * The function in either form. With `fresh`, a batch whose ids were all made here is one plain
 * insert (a second, empty insert costs its start-up), else the made ones plain and the rest checked.
 */
const batchFunction = (fresh: boolean) => `
CREATE OR REPLACE FUNCTION mockyard_create_batch(
  keys text[], ps text[], cs text[], ss text[], ns bigint[], bs bigint[], seeds bigint[],
  ig int[], ids text[], datas text[], lens bigint[],
  now_ms bigint, max_items bigint, max_bytes bigint, touch_every bigint${fresh ? ', fresh boolean[]' : ''})
RETURNS TABLE (g int, item_id text)
LANGUAGE plpgsql VOLATILE SET enable_seqscan = off AS $fn$
BEGIN
  PERFORM pg_advisory_xact_lock(l.h)
    FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest(keys) AS k ORDER BY h) AS l;
  PERFORM set_config('${IN_BATCH}', 'on', true);
  ${
    fresh
      ? `IF coalesce(true = ALL(fresh), false) THEN
    ${batchQuery('plain')}
  ELSE
    ${batchQuery('by-fresh')}
  END IF;`
      : batchQuery('checked')
  }
  PERFORM set_config('${IN_BATCH}', '', true);
END
$fn$`;

/** The statement trigger's function: every insert raises its copies' last position (0017, 0019). */
const LAST_ORD_TRIGGER_FUNCTION = `CREATE OR REPLACE FUNCTION mockyard_items_last_ord() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF current_setting('${IN_BATCH}', true) = 'on' THEN
    RETURN NULL;
  END IF;
  UPDATE collection_sessions s SET last_ord = m.ord
    FROM (SELECT n.project_id, n.collection, n.session, max(n.ord) AS ord FROM new_items n GROUP BY 1, 2, 3) m
    WHERE s.project_id = m.project_id AND s.collection = m.collection AND s.session = m.session AND s.last_ord < m.ord;
  RETURN NULL;
END
$fn$`;

/** The form processes of the version before call (migrations 0014 and 0017). */
export const CREATE_BATCH_FUNCTION = batchFunction(false);
/** The form with `fresh` (migration 0018), which this version calls. */
export const CREATE_BATCH_FRESH_FUNCTION = batchFunction(true);

/**
 * Migration 0017 on PostgreSQL, in the migration's transaction: the copies' last position, the
 * trigger that keeps it through every insert, the positions of the copies there are, and the batch
 * function that reads it. The trigger comes before the positions are counted, so an insert waiting
 * for the table's lock is counted either way. The copies' table is locked first, as every
 * transaction that inserts items locks it first (it reads the copy before it inserts), so one in
 * flight finishes before the migration goes on to the items and none waits on it in a cycle.
 */
export const LAST_ORD = [
  'ALTER TABLE collection_sessions ADD COLUMN IF NOT EXISTS last_ord bigint NOT NULL DEFAULT 0',
  LAST_ORD_TRIGGER_FUNCTION,
  'DROP TRIGGER IF EXISTS collection_items_last_ord ON collection_items',
  `CREATE TRIGGER collection_items_last_ord AFTER INSERT ON collection_items REFERENCING NEW TABLE AS new_items
    FOR EACH STATEMENT EXECUTE FUNCTION mockyard_items_last_ord()`,
  `UPDATE collection_sessions s SET last_ord = greatest(s.last_ord, (SELECT max(i.ord) FROM collection_items i
    WHERE i.project_id = s.project_id AND i.collection = s.collection AND i.session = s.session))
    WHERE EXISTS (SELECT 1 FROM collection_items i
      WHERE i.project_id = s.project_id AND i.collection = s.collection AND i.session = s.session)`,
  CREATE_BATCH_FUNCTION,
];

/** Both forms of the function as this version writes them, which 0019 and 0020 each put in place. */
const BOTH_FORMS = [CREATE_BATCH_FUNCTION, CREATE_BATCH_FRESH_FUNCTION];

/**
 * Migration 0019 on PostgreSQL: both forms again, a batch of made ids no longer reading back the
 * rows it inserted, and the trigger's function, which skips the batch's own inserts.
 */
export const LEAN_BATCH = [LAST_ORD_TRIGGER_FUNCTION, ...BOTH_FORMS];

/** Migration 0020 on PostgreSQL: both forms again, their copies read through their key. */
export const INDEXED_BATCH = BOTH_FORMS;
