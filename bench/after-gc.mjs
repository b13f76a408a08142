// S1's CPU per request after the server answered a few requests and then ran full GCs, as V8's
// memory reducer does after a minute without traffic (docs/architecture.md, "Decisions"): starts a
// built checkout (`node scripts/build.mjs`) with npm start's flags and `--expose-gc`, sets it up over
// the API (register, project, S1's endpoint of bench/definitions.mjs: three requests, after the
// health check's one), sends MOCKS mock
// requests, has it run five full GCs, then loads the mock with wrk (3 s warm-up, 10 s measured; the
// server on CPU 1, wrk on CPU 0) and prints the server's user + system CPU per request. With MOCKS=2
// the process has made six responses before its GCs. Compare checkouts back to back:
//   MOCKS=2 node bench/after-gc.mjs . ../other-checkout
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MOCKS } from './definitions.mjs';
import { api, npmStart, waitFor } from './lib/standalone.mjs';

const MOCKS_BEFORE = Number(process.env.MOCKS ?? 2);
const PORT = Number(process.env.PORT ?? 18555);
const base = `http://127.0.0.1:${PORT}`;
// a preload: SIGUSR2 runs five full GCs, 20 ms apart
const HOOK = "process.on('SIGUSR2', () => { for (let i = 0; i < 5; i++) setTimeout(() => globalThis.gc(), 20 * i); });";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const cpuTicks = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]); // utime + stime, in clock ticks (100 a second)
};
const wrk = (seconds, url) =>
  execFileSync('taskset', ['-c', '0', 'wrk', '-t1', '-c50', `-d${seconds}s`, url], { encoding: 'utf8' });

async function measure(root) {
  if (
    await fetch(`${base}/healthz`).then(
      () => true,
      () => false,
    )
  )
    throw new Error(`port ${PORT} is in use`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-after-gc-'));
  const hook = path.join(dir, 'hook.cjs');
  fs.writeFileSync(hook, HOOK);
  const start = npmStart(root);
  const env = { ...process.env, ...start.env, PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  const node = [process.execPath, ...start.flags, '--expose-gc', '--require', hook, path.resolve(root, 'dist/main.js')];
  const server = spawn('taskset', ['-c', '1', ...node], {
    env: { ...env, DATABASE_URL: `sqlite:${dir}/db.sqlite` },
    stdio: 'ignore',
  });
  try {
    await waitFor(`${base}/healthz`);
    const { token } = await api(base, 'POST', '/api/auth/register', {
      email: 'b@example.com',
      password: 'bench-password-1',
    });
    const { id } = await api(base, 'POST', '/api/projects', { name: 'after-gc' }, token);
    await api(base, 'POST', `/api/projects/${id}/endpoints`, MOCKS.S1.def.endpoint, token);
    const url = `${base}/m/${id}${MOCKS.S1.path}`;
    for (let i = 0; i < MOCKS_BEFORE; i++) await (await fetch(url)).text();
    process.kill(server.pid, 'SIGUSR2'); // taskset execs node: the same process
    await sleep(1000);
    wrk(3, url);
    const t0 = cpuTicks(server.pid);
    const out = wrk(10, url);
    const ticks = cpuTicks(server.pid) - t0;
    const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
    return { requests, usPerRequest: Math.round((ticks * 1e5) / requests) / 10 };
  } finally {
    server.kill();
    await new Promise((r) => (server.exitCode === null ? server.once('exit', r) : r()));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const roots = process.argv.slice(2);
for (const root of roots.length ? roots : ['.']) {
  const m = await measure(root);
  console.log(`${root}: MOCKS=${MOCKS_BEFORE}: ${m.requests} requests, ${m.usPerRequest} µs of server CPU a request`);
}
