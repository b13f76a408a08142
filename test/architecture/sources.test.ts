/**
 * The code stands alone: no comment cites a document outside the repository, and no source file
 * grows past ~400 lines (split by concern first).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/server.js';

function files(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'dist') files(p, out);
    } else if (/\.(ts|tsx|mjs|js)$/.test(e.name)) out.push(p);
  }
  return out;
}

const SOURCES = ['src', 'web/src', 'bin'].flatMap((d) => files(path.join(ROOT, d)));
/** everything a reader of the repository reads: the sources, the tests, the bench and the docs */
const CITING = [...SOURCES, ...['test', 'bench', 'scripts'].flatMap((d) => files(path.join(ROOT, d)))];
const DOCS = [
  'README.md',
  'SECURITY.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** how the documents outside the repository are cited (this file's own patterns aside) */
const OUTSIDE = /\bCONTRACT §|\bSPEC §|\bARCHITECTURE(\.md)? "|\bSTYLE\.md/;

describe('sources', () => {
  it('cite the project’s own docs, never the contract document outside the repository', () => {
    expect(SOURCES.length).toBeGreaterThan(50);
    const citing = SOURCES.filter((f) => fs.readFileSync(f, 'utf8').includes('CONTRACT')).map((f) =>
      path.relative(ROOT, f),
    );
    expect(citing).toEqual([]);
  });

  it('tests, bench, scripts and docs cite no section of a document outside the repository either', () => {
    const self = path.join(ROOT, 'test', 'architecture', 'sources.test.ts');
    const files = [...CITING.filter((f) => f !== self), ...DOCS.map((d) => path.join(ROOT, d))];
    expect(files.length).toBeGreaterThan(200);
    const citing = files.filter((f) => OUTSIDE.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(ROOT, f));
    expect(citing).toEqual([]);
  });

  it('every doc a source cites exists', () => {
    const missing = new Set<string>();
    for (const f of SOURCES) {
      for (const m of fs.readFileSync(f, 'utf8').matchAll(/\b(docs\/[a-z-]+\.md|SECURITY\.md)/g))
        if (!fs.existsSync(path.join(ROOT, m[1]))) missing.add(`${path.relative(ROOT, f)}: ${m[1]}`);
    }
    expect([...missing]).toEqual([]);
  });
});
