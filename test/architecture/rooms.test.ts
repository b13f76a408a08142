/**
 * The rooms of src/ and what each may import (docs/architecture.md, "Rooms"): the domain imports no
 * other room; the mock runtime reaches the store and the importers only through its ports
 * (src/runtime/ports.ts), never their modules, and takes its configuration as values; `files/`
 * (mocks as code) uses the same services as the API, not the API's modules.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/server.js';

const SRC = path.join(ROOT, 'src');

function files(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) files(p, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** The room of a file under src/: its first folder, or the file's own name for the top-level ones. */
const roomOf = (file: string) => {
  const rel = path.relative(SRC, file).split(path.sep);
  return rel.length > 1 ? rel[0] : rel[0].replace(/\.ts$/, '');
};

/** Every relative module a file imports (static, type-only, re-exports and dynamic imports). */
function imports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g))
    out.push(path.resolve(path.dirname(file), m[1]));
  return out;
}

const FORBIDDEN: Record<string, (room: string) => boolean> = {
  domain: (room) => room !== 'domain',
  runtime: (room) => ['store', 'interop', 'api', 'files', 'cli', 'config', 'server', 'main'].includes(room),
  files: (room) => room === 'api',
};

describe('rooms', () => {
  const all = files(SRC);

  it('finds the rooms it checks', () => {
    const rooms = new Set(all.map(roomOf));
    for (const r of Object.keys(FORBIDDEN)) expect(rooms).toContain(r);
  });

  it('no room imports what it may not', () => {
    const broken: string[] = [];
    for (const file of all) {
      const room = roomOf(file);
      const rule = FORBIDDEN[room];
      if (!rule) continue;
      for (const target of imports(file)) {
        if (!target.startsWith(SRC)) {
          broken.push(`${path.relative(ROOT, file)} → ${path.relative(ROOT, target)} (outside src/)`);
          continue;
        }
        const to = roomOf(target.replace(/\.js$/, '.ts'));
        if (rule(to)) broken.push(`${path.relative(ROOT, file)} (${room}) → ${path.relative(ROOT, target)} (${to})`);
      }
    }
    expect(broken).toEqual([]);
  });
});
