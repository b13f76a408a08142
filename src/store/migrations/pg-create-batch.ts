/**
 * `mockyard_create_batch`, PostgreSQL's one round trip for a batch of collection creates
 * (store/hot/pg-creates.ts): in one statement — its own transaction — it takes the advisory locks of
 * every collection and session of the batch (in hash order, as every batch does), reads each
 * session's copy, and for each one whose creates fit (the copy exists, was written over the seed the
 * process compiled, and stays within the item and byte caps with all of them) inserts the items after
 * its last position, skipping ids already taken, and adds what it wrote to the copy's count and bytes
 * (touching it when the last touch is older than `touch_every`). It returns a row per item written
 * (group, id) and a row (group, NULL) per group it left alone, for the caller to run command by command.
 *
 * Arguments, one entry per group (collection and session): lock keys, project ids, collections,
 * sessions, item counts, item bytes, the compiled seed's length (-1: none); one entry per item: its
 * group (1-based), id, JSON and bytes; then now (ms), the caps and the touch interval (ms).
 */
export const CREATE_BATCH_FUNCTION = `
CREATE OR REPLACE FUNCTION mockyard_create_batch(
  keys text[], ps text[], cs text[], ss text[], ns bigint[], bs bigint[], seeds bigint[],
  ig int[], ids text[], datas text[], lens bigint[],
  now_ms bigint, max_items bigint, max_bytes bigint, touch_every bigint)
RETURNS TABLE (g int, item_id text)
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  n int := coalesce(array_length(ps, 1), 0);
  ok int[] := '{}';
  tops bigint[] := array_fill(0::bigint, ARRAY[greatest(n, 1)]);
  i int;
  t bigint;
  r record;
BEGIN
  PERFORM pg_advisory_xact_lock(l.h)
    FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest(keys) AS k ORDER BY h) AS l;
  FOR i IN 1 .. n LOOP
    SELECT s.base, s.items, s.bytes INTO r FROM collection_sessions s
      WHERE s.project_id = ps[i] AND s.collection = cs[i] AND s.session = ss[i];
    IF FOUND AND (r.base < 0 OR r.base = seeds[i])
        AND r.items + ns[i] <= max_items AND r.bytes + bs[i] <= max_bytes THEN
      ok := ok || i;
      -- the last position: one step down the index (max() here would read every row of the session)
      SELECT x.ord INTO t FROM collection_items x
        WHERE x.project_id = ps[i] AND x.collection = cs[i] AND x.session = ss[i] ORDER BY x.ord DESC LIMIT 1;
      tops[i] := greatest(coalesce(t, 0), r.base, 0);
    ELSE
      g := i;
      item_id := NULL;
      RETURN NEXT;
    END IF;
  END LOOP;
  IF cardinality(ok) = 0 THEN
    RETURN;
  END IF;
  RETURN QUERY
  WITH u AS (
    SELECT v.g, v.id, v.data, v.len, tops[v.g] + row_number() OVER (PARTITION BY v.g ORDER BY v.n) AS ord
      FROM unnest(ig, ids, datas, lens) WITH ORDINALITY AS v(g, id, data, len, n)
      WHERE v.g = ANY(ok)
  ), ins AS (
    INSERT INTO collection_items (project_id, collection, session, item_id, ord, data, touched_at)
      SELECT ps[u.g], cs[u.g], ss[u.g], u.id, u.ord, u.data, now_ms FROM u
      ON CONFLICT DO NOTHING
      RETURNING collection_items.project_id AS p, collection_items.collection AS c,
        collection_items.session AS s, collection_items.item_id AS id
  ), got AS (
    SELECT u.g, u.id, u.len FROM u JOIN ins
      ON ins.p = ps[u.g] AND ins.c = cs[u.g] AND ins.s = ss[u.g] AND ins.id = u.id
  ), counted AS (
    SELECT k.i AS g, count(got.id) AS items, coalesce(sum(got.len), 0) AS bytes
      FROM unnest(ok) AS k(i) LEFT JOIN got ON got.g = k.i GROUP BY k.i
  ), adjusted AS (
    UPDATE collection_sessions AS cs0 SET items = cs0.items + counted.items, bytes = cs0.bytes + counted.bytes,
        touched_at = CASE WHEN cs0.session <> '' AND now_ms - cs0.touched_at > touch_every
          THEN now_ms ELSE cs0.touched_at END
      FROM counted
      WHERE cs0.project_id = ps[counted.g] AND cs0.collection = cs[counted.g] AND cs0.session = ss[counted.g]
  )
  SELECT got.g, got.id FROM got;
END
$fn$`;
