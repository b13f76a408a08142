/**
 * A script run in a node process of its own, on the build (`npm test` builds before it tests): for
 * what only a fresh process shows — V8's hidden classes, what keeps the event loop alive.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './server.js';

/** A module of the build, as a string literal to import in a script. */
export const distModule = (p: string): string => JSON.stringify(path.join(ROOT, 'dist', p));

/** Runs `script` (an ES module) with node `flags`; the JSON its last line of output prints. Throws
 * when the script wrote to stderr or printed no JSON. */
export function runScript(script: string, flags: readonly string[] = []): unknown {
  const out = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (out.stderr !== '') throw new Error(`the script wrote to stderr: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop() ?? '');
}
