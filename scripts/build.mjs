#!/usr/bin/env node
// Builds the server (tsc → dist/) and the dashboard (vite → web/dist/), then writes a stamp that
// scripts/start.mjs compares with the sources to decide whether a rebuild is needed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

const only = process.argv[2]; // 'server' | 'web' | undefined (both)
if (only !== 'web') {
  fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  run(bin('tsc'), ['-p', 'tsconfig.build.json']);
}
if (only !== 'server' && fs.existsSync(path.join(root, 'web', 'index.html'))) {
  run(bin('vite'), ['build', 'web', '--logLevel', 'warn']);
}
fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
fs.writeFileSync(path.join(root, 'dist', '.build-stamp'), new Date().toISOString());
