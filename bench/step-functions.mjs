// Measures the engine's step functions (src/runtime/steps.ts) against the same evaluation awaited
// at every step, as a plain `async` function would be: CPU time per evaluation of a rule set that
// reads storage and runs a set_variable action on SQLite (synchronous with `drive`).
//   npm run build && node bench/step-functions.mjs
import pino from 'pino';
import { MockContext, MockRequestView } from '../dist/runtime/context.js';
import { Engine } from '../dist/runtime/engine.js';
import { routeKey } from '../dist/runtime/router.js';
import { drive } from '../dist/runtime/steps.js';
import { openStore } from '../dist/store/index.js';

const N = Number(process.env.N ?? 200_000);
const store = await openStore('sqlite::memory:');
const user = await store.users.create('bench@example.test', 'x');
const project = await store.projects.create(user.id, { name: 'bench' });
const ep = await store.endpoints.create(user.id, project.id, {
  method: 'GET',
  path: '/a',
  routeKey: routeKey('/a'),
  statusCode: 200,
  responseBody: '{{endpoint.x}}',
  contentType: 'text/plain',
  headers: {},
  channels: [],
});
await store.rules.create(
  user.id,
  project.id,
  ep.id,
  {
    name: 'r',
    priority: 0,
    active: true,
    conditions: [{ target: 'header', key: 'x-tier', operator: 'equals', value: 'vip' }],
    response: null,
    actions: [{ type: 'set_variable', name: 'v', value: '{{request.headers.x-tier}}', onError: 'continue' }],
  },
  10,
);
const engine = new Engine({
  store,
  egress: {
    request: async () => {
      throw new Error('no');
    },
    close: async () => {},
  },
  log: pino({ level: 'silent' }),
});
const compiled = await engine.projects.project(project.id);
const endpoint = compiled.router.match('GET', '/a').value;
const headers = { 'x-tier': 'vip' };
const req = () => new MockContext(new MockRequestView('GET', '/a', '', headers, ['x-tier', 'vip']), null);

async function driveAsync(gen) {
  let r = gen.next();
  while (!r.done) r = gen.next(await r.value);
  return r.value;
}

async function measure(name, run) {
  // a result that is not a promise is used at once, as the mock handler does (no microtask)
  for (let i = 0; i < 20_000; i++) {
    const out = run();
    if (out instanceof Promise) await out;
  }
  const t0 = process.cpuUsage();
  const w0 = performance.now();
  for (let i = 0; i < N; i++) {
    const out = run();
    if (out instanceof Promise) await out;
  }
  const cpu = process.cpuUsage(t0);
  const us = (cpu.user + cpu.system) / N;
  console.log(
    `${name}: ${us.toFixed(2)} µs CPU per evaluation (${(((performance.now() - w0) / N) * 1000).toFixed(2)} µs wall)`,
  );
  return us;
}

const r = { projectId: project.id, ep: endpoint, session: '', hops: 0 };
const sync = () => drive(engine.evaluate({ ...r, ctx: req() }));
const awaited = () => driveAsync(engine.evaluate({ ...r, ctx: req() }));
// alternate, so that neither gets the warmer JIT
const a = [];
const b = [];
for (let round = 0; round < 3; round++) {
  a.push(await measure('step function (drive)', sync));
  b.push(await measure('awaited at every step (plain async)', awaited));
}
const median = (x) => [...x].sort((p, q) => p - q)[1];
console.log(
  `median: step function ${median(a).toFixed(2)} µs, plain async ${median(b).toFixed(2)} µs, async / step function = ${(median(b) / median(a)).toFixed(2)}`,
);
await store.close();
