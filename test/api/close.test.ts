/**
 * `close()` of a server started in-process leaves nothing behind that keeps the process alive: a
 * program or test suite that starts Mockyard in its own process and closes it exits at once. Read in
 * a child process of its own (the test runner's timers would blur the count), on the build.
 */
import { expect, it } from 'vitest';
import { distModule, runScript } from '../helpers/child-script.js';

it('leaves nothing running once closed, after answering the API and a mock: the process exits', () => {
  const script = `
    const { loadConfig } = await import(${distModule('config.js')});
    const { startServer } = await import(${distModule('server.js')});
    const running = await startServer(
      loadConfig({ DATABASE_URL: 'sqlite::memory:', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }),
    );
    const api = (method, p, body, token) =>
      fetch(running.url + p, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: 'Bearer ' + token } : {}) },
        body: JSON.stringify(body),
      }).then((r) => r.json());
    const { token } = await api('POST', '/api/auth/register', { email: 'c@example.com', password: 'close-password-1' });
    const { id } = await api('POST', '/api/projects', { name: 'p' }, token);
    await api('POST', '/api/projects/' + id + '/endpoints', { method: 'GET', path: '/x', responseBody: 'ok' }, token);
    const mock = await fetch(running.url + '/m/' + id + '/x');
    await mock.text();
    await running.close();
    const closed = Date.now();
    // the event loop empties: nothing is left that keeps the process alive
    process.once('beforeExit', () => console.log(JSON.stringify({ status: mock.status, ms: Date.now() - closed })));`;
  const { status, ms } = runScript(script) as { status: number; ms: number };
  expect(status).toBe(200);
  // a fault bound, not a timing: the drain's 8-s bound, left running, held the process until it ran out
  expect(ms).toBeLessThan(4000);
});
