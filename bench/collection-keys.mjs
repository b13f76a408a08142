// What SQLite writes for a collection create, by how the items are keyed: the S8 pattern (commits of
// 50 creates, one per connection, spread over 50 sessions) on a fresh database per layout, in turn.
//   text          the table until migration 0016: the key (project_id, collection, session, item_id), all text,
//                 as an index beside the rows (docs/architecture.md, "Where S8's WAL goes")
//   copy          the rows keyed by an integer for the session's copy and the item id (the store's since 0016)
//   copy-norowid  the same key, the rows in the key's B-tree (WITHOUT ROWID)
// Prints user and system CPU, the write calls and the bytes written (the WAL and its checkpoints) per create.
//   node bench/collection-keys.mjs        (N creates per layout, 150,000 by default)
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { procIo } from './lib/standalone.mjs';

const N = Number(process.env.N ?? 150_000);
const BATCH = 50;
const SESSIONS = 50;
const PROJECT = randomUUID();
const COLLECTION = 'new-items';
const DATA = JSON.stringify({ id: '', name: 'new item', price: 12.5, tags: ['a', 'b'], stock: 3 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-collection-keys-'));

// time-ordered ids, as domain/uuid7.ts makes them: a create lands at the end of its session's part of the key
let seq = 0;
const timeOrderedId = () => {
  const t = (Date.now() * 1000 + (seq++ % 1000)).toString(16).padStart(12, '0');
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${randomUUID().slice(15)}`;
};

let round = 0;
function measure(layout) {
  const db = new Database(path.join(dir, `${layout}-${round++}.db`));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -2000');
  db.exec(`CREATE TABLE sessions (id INTEGER PRIMARY KEY, project_id TEXT, collection TEXT, session TEXT,
    items INT, bytes INT, last_ord INT, UNIQUE (project_id, collection, session))`);
  let insert;
  if (layout === 'text') {
    db.exec(`CREATE TABLE items (project_id TEXT NOT NULL, collection TEXT NOT NULL, session TEXT NOT NULL,
      item_id TEXT NOT NULL, ord INTEGER NOT NULL, data TEXT NOT NULL, touched_at INTEGER NOT NULL,
      PRIMARY KEY (project_id, collection, session, item_id))`);
    const st = db.prepare('INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?)');
    insert = (s, id, ord) => st.run(PROJECT, COLLECTION, `s${s}`, id, ord, DATA, Date.now());
  } else {
    db.exec(`CREATE TABLE items (copy INTEGER NOT NULL, item_id TEXT NOT NULL, ord INTEGER NOT NULL,
      data TEXT NOT NULL, touched_at INTEGER NOT NULL, PRIMARY KEY (copy, item_id))${layout === 'copy-norowid' ? ' WITHOUT ROWID' : ''}`);
    const st = db.prepare('INSERT INTO items VALUES (?, ?, ?, ?, ?)');
    insert = (s, id, ord) => st.run(s + 1, id, ord, DATA, Date.now());
  }
  const open = db.prepare(
    'INSERT INTO sessions (project_id, collection, session, items, bytes, last_ord) VALUES (?, ?, ?, 0, 0, 0)',
  );
  for (let s = 0; s < SESSIONS; s++) open.run(PROJECT, COLLECTION, `s${s}`);
  const adjust = db.prepare(
    'UPDATE sessions SET items = items + 1, bytes = bytes + ?, last_ord = ? WHERE project_id = ? AND collection = ? AND session = ?',
  );
  const commit = db.transaction((k) => {
    for (let i = 0; i < BATCH; i++) {
      const s = Math.floor(Math.random() * SESSIONS);
      const ord = k * BATCH + i + 1;
      insert(s, timeOrderedId(), ord);
      adjust.run(DATA.length, ord, PROJECT, COLLECTION, `s${s}`);
    }
  });
  const cpu0 = process.cpuUsage();
  const io0 = procIo();
  for (let k = 0; k < N / BATCH; k++) commit(k);
  const cpu = process.cpuUsage(cpu0);
  const io1 = procIo();
  const bytes = io1.bytes - io0.bytes;
  const writes = io1.calls - io0.calls;
  db.close();
  console.log(
    `${layout.padEnd(13)} user ${(cpu.user / N).toFixed(2)} + system ${(cpu.system / N).toFixed(2)} µs a create; ${(writes / N).toFixed(2)} write calls and ${(bytes / N / 1024).toFixed(2)} KB a create`,
  );
}

try {
  for (const layout of ['text', 'copy', 'copy-norowid', 'text', 'copy', 'copy-norowid']) measure(layout);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
