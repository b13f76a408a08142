#!/usr/bin/env node
// Builds the server (tsc → dist/) and the dashboard (vite → web/dist/), then writes a stamp that
// scripts/start.mjs compares with the sources to decide whether a rebuild is needed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const run = (cmd, args, env = process.env) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit', env });

const only = process.argv[2]; // 'server' | 'web' | undefined (both)
if (only !== 'web') {
  // Build beside dist/ and swap it in, so a failed build never leaves a running start without dist/main.js.
  const tmp = path.join(root, `dist.tmp-${process.pid}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  try {
    run(bin('tsc'), ['-p', 'tsconfig.build.json', '--outDir', tmp]);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  const old = path.join(root, `dist.old-${process.pid}`);
  if (fs.existsSync(path.join(root, 'dist'))) fs.renameSync(path.join(root, 'dist'), old);
  fs.renameSync(tmp, path.join(root, 'dist'));
  fs.rmSync(old, { recursive: true, force: true });
}
if (only !== 'server' && fs.existsSync(path.join(root, 'web', 'index.html'))) {
  // the production bundle whatever the caller's NODE_ENV: Vite takes an existing one for the
  // bundle's process.env.NODE_ENV, and a start from a test run (NODE_ENV=test) built React's
  // development build, twice the size and slower (the dashboard's flood test then failed)
  run(bin('vite'), ['build', 'web', '--logLevel', 'warn'], { ...process.env, NODE_ENV: 'production' });
}
fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
fs.writeFileSync(path.join(root, 'dist', '.build-stamp'), new Date().toISOString());
