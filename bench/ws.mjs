// WebSocket bench (`npm run bench:ws`, docs/websocket.md): Mockyard's echo rule against a bare `ws`
// echo server in the same run — messages answered per second of server CPU (the server's
// utime+stime from /proc) with CLIENTS sockets in ping-pong for DURATION seconds — then RSS with
// IDLE sockets open on Mockyard. Environment: CLIENTS=50 DURATION=5 IDLE=10000.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { api, npmStart, rssMB, waitFor } from './lib/standalone.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLIENTS = Number(process.env.CLIENTS ?? 50);
const DURATION = Number(process.env.DURATION ?? 5);
const IDLE = Number(process.env.IDLE ?? 10_000);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TICKS = 100; // USER_HZ on Linux

function cpuSeconds(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / TICKS;
}

/** CLIENTS sockets each sending a message as soon as the previous one is answered, for DURATION s. */
async function pingPong(url, pid) {
  const sockets = await Promise.all(
    Array.from(
      { length: CLIENTS },
      () =>
        new Promise((res, rej) => {
          const ws = new WebSocket(url);
          ws.once('open', () => res(ws));
          ws.once('error', rej);
        }),
    ),
  );
  let answered = 0;
  let running = true;
  for (const ws of sockets) {
    ws.on('message', () => {
      answered++;
      if (running) ws.send('ping');
    });
  }
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  for (const ws of sockets) ws.send('ping');
  await sleep(DURATION * 1000);
  running = false;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(pid) - cpu0;
  for (const ws of sockets) ws.close();
  await sleep(300);
  return { perSecond: answered / seconds, perCpuSecond: answered / Math.max(cpu, 0.01), cpuShare: cpu / seconds };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-ws-bench-'));
const children = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
try {
  const bare = spawn(process.execPath, [path.join(ROOT, 'bench/ws-echo-server.mjs')], {
    env: { ...process.env, PORT: '18380' },
  });
  children.push(bare);
  await new Promise((r) => bare.stdout.once('data', r));
  const port = 18390;
  const start = npmStart(ROOT);
  const my = spawn(process.execPath, [...start.flags, 'scripts/start.mjs'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...start.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${path.join(tmp, 'db.sqlite')}`,
      LOG_LEVEL: 'warn',
      MOCKYARD_MAX_SOCKETS: String(IDLE + 100),
    },
    stdio: 'ignore',
  });
  children.push(my);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/healthz`);
  const { token } = await api(base, 'POST', '/api/auth/register', {
    email: `ws-${Date.now()}@bench.test`,
    password: 'bench-password-1',
  });
  const p = await api(base, 'POST', '/api/projects', { name: 'ws bench' }, token);
  const ep = await api(base, 'POST', `/api/projects/${p.id}/endpoints`, { method: 'WS', path: '/echo' }, token);
  await api(
    base,
    'POST',
    `/api/projects/${p.id}/endpoints/${ep.id}/rules`,
    { name: 'echo', response: { steps: [{ body: 'you said {{message.text}}' }] } },
    token,
  );

  const bareRun = await pingPong('ws://127.0.0.1:18380/', bare.pid);
  const myRun = await pingPong(`ws://127.0.0.1:${port}/m/${p.id}/echo`, my.pid);
  const ratio = myRun.perCpuSecond / bareRun.perCpuSecond;
  console.log(
    `echo, ${CLIENTS} sockets, ${DURATION} s: bare ws ${Math.round(bareRun.perSecond)} msg/s (${Math.round(bareRun.perCpuSecond)} per CPU s); mockyard ${Math.round(myRun.perSecond)} msg/s (${Math.round(myRun.perCpuSecond)} per CPU s)`,
  );
  console.log(`echo per CPU second, mockyard/bare = ${ratio.toFixed(2)} (goal ≥ 0.50)`);

  const before = rssMB(my.pid);
  const idle = [];
  for (let i = 0; i < IDLE; i += 500) {
    const batch = await Promise.all(
      Array.from(
        { length: Math.min(500, IDLE - i) },
        () =>
          new Promise((res, rej) => {
            const ws = new WebSocket(`ws://127.0.0.1:${port}/m/${p.id}/echo`);
            ws.once('open', () => res(ws));
            ws.once('error', rej);
          }),
      ),
    );
    idle.push(...batch);
  }
  await sleep(2000);
  const rss = rssMB(my.pid);
  console.log(
    `${idle.length} idle sockets on mockyard: RSS ${Math.round(rss)} MB (${Math.round(before)} MB before; goal ≤ 400 MB)`,
  );
  for (const ws of idle) ws.terminate();
} finally {
  for (const c of children) c.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
}
