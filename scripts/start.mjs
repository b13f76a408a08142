#!/usr/bin/env node
// `npm start`: builds when the build is missing or older than any source file, then serves.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.build-stamp');

function newestMtime(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return newest;
  for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
    if (ent.name === 'node_modules' || ent.name === 'dist') continue;
    const p = path.join(dir, ent.name);
    newest = Math.max(newest, ent.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

function needsBuild() {
  if (!fs.existsSync(stamp) || !fs.existsSync(path.join(root, 'dist', 'main.js'))) return true;
  const built = fs.statSync(stamp).mtimeMs;
  return [path.join(root, 'src'), path.join(root, 'web')].some((d) => newestMtime(d) > built);
}

if (needsBuild()) {
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
}
await import(pathToFileURL(path.join(root, 'dist', 'main.js')).href);
