import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { GroupCommit, type HitGroup, settleHitGroup } from './group-commit.js';

/** A commit whose round trips the test ends by hand, counting each rule's hits like the database. */
function manualCommit() {
  const counters = new Map<string, number>();
  const trips: { hits: HitGroup[]; done: () => void }[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const gc = new GroupCommit(
    (_ops, hits) =>
      new Promise<void>((resolve) => {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        trips.push({
          hits,
          done: () => {
            for (const g of hits) {
              const total = (counters.get(g.ruleId) ?? 0) + g.waiters.length;
              counters.set(g.ruleId, total);
              settleHitGroup(g, total);
            }
            inFlight--;
            resolve();
          },
        });
      }),
  );
  return { gc, trips, mostInFlight: () => mostInFlight };
}

describe('group commit', () => {
  it('keeps one round trip in flight; hits of every turn meanwhile join the next one, counted exactly', async () => {
    const { gc, trips, mostInFlight } = manualCommit();
    const first = [gc.hit('r', ''), gc.hit('r', '')];
    await turn();
    expect(trips).toHaveLength(1);
    // three more turns of traffic while the first round trip is out
    const later: Promise<number>[] = [];
    for (let t = 0; t < 3; t++) {
      later.push(gc.hit('r', ''), gc.hit('q', 's'));
      await turn();
    }
    expect(trips).toHaveLength(1);
    trips[0].done();
    expect(await Promise.all(first)).toEqual([1, 2]);
    await turn();
    // all six waiting hits go in one statement
    expect(trips).toHaveLength(2);
    expect(trips[1].hits.map((g) => [g.ruleId, g.waiters.length])).toEqual([
      ['r', 3],
      ['q', 3],
    ]);
    trips[1].done();
    expect(await Promise.all(later)).toEqual([3, 1, 4, 2, 5, 3]);
    expect(mostInFlight()).toBe(1);
    expect(gc.commitCount).toBe(2);
    expect(gc.largestHitCommit).toBe(6);
  });

  it('a failed round trip fails its own waiters only, and the next one still goes', async () => {
    let calls = 0;
    const gc = new GroupCommit((_ops, hits) => {
      calls++;
      if (calls === 1) return Promise.reject(new Error('down'));
      for (const g of hits) settleHitGroup(g, g.waiters.length);
      return Promise.resolve();
    });
    const failed = gc.hit('r', '');
    const next = gc.hit('r', 'other');
    await expect(failed).rejects.toThrow('down');
    await expect(next).rejects.toThrow('down'); // same turn, same round trip
    expect(await gc.hit('r', '')).toBe(1);
    expect(calls).toBe(2);
  });

  it('a waiter object (hitInto) shares the group with promises; one whose resolve throws gets the error, the rest their counts', async () => {
    const gc = new GroupCommit((_ops, hits) => {
      for (const g of hits) settleHitGroup(g, g.waiters.length);
    });
    const got: string[] = [];
    const waiter = (name: string, boom = false) => ({
      resolve(n: number) {
        got.push(`${name} ${n}`);
        if (boom) throw new Error(`${name} broke`);
      },
      reject(e: unknown) {
        got.push(`${name} rejected: ${(e as Error).message}`);
      },
    });
    const first = gc.hit('r', '');
    gc.hitInto('r', '', waiter('a'));
    gc.hitInto('r', '', waiter('b', true));
    // resolve and reject both throw: ignored, the others still hear theirs
    gc.hitInto('r', '', {
      resolve: () => {
        throw new Error('x');
      },
      reject: () => {
        throw new Error('y');
      },
    });
    const last = gc.hit('r', '');
    gc.hitInto('q', '', waiter('c'));
    expect(await Promise.all([first, last])).toEqual([1, 5]);
    expect(got).toEqual(['a 2', 'b 3', 'b rejected: b broke', 'c 1']);
    expect(gc.commitCount).toBe(1);
  });

  it('a failed commit reaches every waiter, even past one whose reject throws', async () => {
    const gc = new GroupCommit(() => {
      throw new Error('disk full');
    });
    const throwing = {
      resolve: () => {},
      reject: () => {
        throw new Error('y');
      },
    };
    gc.hitInto('r', '', throwing);
    const after = gc.hit('r', '');
    const other = gc.hit('q', '');
    await expect(after).rejects.toThrow('disk full');
    await expect(other).rejects.toThrow('disk full');
  });

  it('a synchronous commit spread over turns carries the writes of several, until enough are pending', async () => {
    const commits: number[] = [];
    const gc = new GroupCommit(
      (ops, hits) => {
        commits.push(ops.length + hits.reduce((n, g) => n + g.waiters.length, 0));
        for (const o of ops) o.resolve(o.op());
        for (const g of hits) settleHitGroup(g, g.waiters.length);
      },
      { turns: 2, enough: 4 },
    );
    // one write a turn for three turns: one commit at the end of the third
    const spread = [gc.hit('a', ''), new Promise((resolve, reject) => gc.enqueue({ op: () => 'x', resolve, reject }))];
    await turn();
    spread.push(gc.hit('b', ''));
    await turn();
    expect(commits).toEqual([]);
    expect(await Promise.all(spread)).toEqual([1, 'x', 1]);
    expect(commits).toEqual([3]);
    // four in one turn are enough: committed at the end of that turn
    const enough = [gc.hit('c', ''), gc.hit('c', ''), gc.hit('c', ''), gc.hit('c', '')];
    await turn();
    expect(commits).toEqual([3, 4]);
    expect(await Promise.all(enough)).toEqual([1, 2, 3, 4]);
  });

  it('a synchronous commit (SQLite) holds nothing back: one commit per turn', async () => {
    const gc = new GroupCommit((_ops, hits) => {
      for (const g of hits) settleHitGroup(g, g.waiters.length);
    });
    expect(await Promise.all([gc.hit('a', ''), gc.hit('a', '')])).toEqual([1, 2]);
    expect(await gc.hit('a', '')).toBe(1);
    expect(gc.commitCount).toBe(2);
  });
});
