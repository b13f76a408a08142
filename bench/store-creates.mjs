// S8's pattern through the store's hot path in one process, without HTTP: turns of 50 creates, one
// per session of 50, each turn committed together (the group commit, store/hot/sqlite.ts), on a
// fresh SQLite file; prints the process's CPU (user + system) per create for each of 3 rounds of
// TURNS turns (the sessions reset between rounds), the write calls and KB written per create
// (/proc/self/io: the WAL and its checkpoints), and how long a turn took (its commit: a merge of the
// creates' journal or a checkpoint shows in the p99 and the max). Give one or more checkouts, each built
// (`node scripts/build.mjs`), to compare builds back to back:
//   node bench/store-creates.mjs . ../other-checkout        (TURNS=2000 by default)
// PICK=random: each create of a turn goes to a session picked at random (as S8's connections spread
// over its sessions), instead of one to each session in turn — every session then reaches a count at
// the same turn, which hides what a store does per session (docs/architecture.md, the creates' journal).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { procIo as io } from './lib/standalone.mjs';

const TURNS = Number(process.env.TURNS ?? 2000);
const SESSIONS = 50;
const RANDOM = process.env.PICK === 'random';
const body = { name: 'new item', price: 12.5, tags: ['a', 'b'], stock: 3 };

async function measure(root) {
  const { openStore } = await import(path.resolve(root, 'dist/store/index.js'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-store-creates-'));
  const store = await openStore(`sqlite:${dir}/db.sqlite`);
  try {
    const u = await store.users.create('bench@example.test', 'h');
    const p = await store.projects.create(u.id, { name: 'p' });
    await store.collections.create(u.id, p.id, 'items', { idField: 'id', seed: [] });
    const refs = Array.from({ length: SESSIONS }, (_, s) => ({
      projectId: p.id,
      name: 'items',
      idField: 'id',
      seed: [],
      base: null,
      session: `s${s}`,
    }));
    const rounds = [];
    for (let round = 0; round < 3; round++) {
      const w0 = io();
      const c0 = process.cpuUsage();
      const turns = new Float64Array(TURNS);
      for (let t = 0; t < TURNS; t++) {
        const t0 = performance.now();
        await Promise.all(
          refs.map((r) =>
            store.hot.collection(RANDOM ? refs[Math.floor(Math.random() * SESSIONS)] : r, {
              op: 'create',
              item: { ...body },
            }),
          ),
        );
        turns[t] = performance.now() - t0;
      }
      const c = process.cpuUsage(c0);
      const w = io();
      const n = TURNS * SESSIONS;
      turns.sort();
      const at = (q) => turns[Math.min(TURNS - 1, Math.floor(TURNS * q))].toFixed(1);
      rounds.push(
        `${((c.user + c.system) / n).toFixed(2)} (${((w.calls - w0.calls) / n).toFixed(2)} write calls, ${((w.bytes - w0.bytes) / n / 1024).toFixed(2)} KB; turn p50 ${at(0.5)} p99 ${at(0.99)} p99.9 ${at(0.999)} max ${at(1)} ms)`,
      );
      for (const r of refs) await store.collections.reset(u.id, p.id, 'items', r.session);
    }
    console.log(`${root}: ${rounds.join(', ')} µs of CPU a create`);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const roots = process.argv.slice(2);
for (const root of roots.length > 0 ? roots : ['.']) await measure(root);
