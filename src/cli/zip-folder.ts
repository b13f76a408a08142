/** A folder as a zip in memory (`mockyard import <folder>`): its files, less dot-entries and node_modules. */
import fs from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';

/** The most bytes a folder may hold to be sent (the server's import limit is 32 MiB by default). */
const MAX_BYTES = 64 * 1024 * 1024;

export function zipFolder(root: string): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  let total = 0;
  const walk = (dir: string, rel: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const abs = path.join(dir, e.name);
      const name = rel === '' ? e.name : `${rel}/${e.name}`;
      // symbolic links are not followed: only what the folder itself holds is sent
      if (e.isDirectory()) walk(abs, name);
      else if (e.isFile()) {
        const data = fs.readFileSync(abs);
        total += data.byteLength;
        if (total > MAX_BYTES) throw new Error(`the folder holds more than ${MAX_BYTES} bytes`);
        files[name] = data;
      }
    }
  };
  walk(root, '');
  return zipSync(files, { level: 6 });
}
