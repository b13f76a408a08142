// What the standalone benches (bench/sse.mjs, bench/ws.mjs, bench/after-gc.mjs) share with each other and with bench/run.mjs:
// waiting for a server, the management API by base URL, one process's RSS, its /proc/<pid>/stat fields
// and its own write calls, and `npm start`'s flags.
import fs from 'node:fs';
import path from 'node:path';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Resolves once `url` answers 2xx (up to 150 s). */
export async function waitFor(url) {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await sleep(250);
  }
  throw new Error(`${url} did not answer`);
}

/** A management API call; throws on a non-2xx answer. */
export async function api(base, method, p, body, token) {
  const r = await fetch(`${base}${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await r.json().catch(() => null);
  if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

/** One process's resident memory, MB. */
export const rssMB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** A process's /proc/<pid>/stat fields after its name (field 3 of proc(5) first), or null once it is gone. */
export function procStat(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** This process's write calls and bytes written so far (/proc/self/io: `syscw`, `wchar`). */
export function procIo() {
  const text = fs.readFileSync('/proc/self/io', 'utf8');
  return { calls: Number(/syscw: (\d+)/.exec(text)[1]), bytes: Number(/wchar: (\d+)/.exec(text)[1]) };
}

/**
 * The environment assignments and node flags of `npm start` in a checkout (its package.json), so a
 * measured process is the one users run.
 */
export function npmStart(dir) {
  try {
    const script = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).scripts?.start ?? '';
    const words = script.split(/\s+/);
    const env = Object.fromEntries(
      words
        .filter((w) => /^[A-Z_][A-Z0-9_]*=/.test(w))
        .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
    );
    return { env, flags: words.filter((w) => w.startsWith('--')) };
  } catch {
    return { env: {}, flags: [] };
  }
}
