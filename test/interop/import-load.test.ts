/**
 * A GitHub-sized description (12+ MiB, 1,300 operations, shared $refs) imports, every operation
 * answers, and the import never holds the server's event loop for more than 100 ms (docs/interop.md:
 * parsing, validation, dereferencing and example generation run in the import worker; writes yield).
 * The upload comes from another process, so the delay measured here is the server's own.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigDescription, OPERATIONS } from '../../bench/big-description.mjs';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('a 12 MiB import', () => {
  let s: TestServer;
  let file: string;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-big-')), 'big.json');
    fs.writeFileSync(file, bigDescription());
  });
  afterAll(async () => {
    await s.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it('imports, answers every operation, and holds the event loop under 100 ms (1 s with the contract)', async () => {
    expect(fs.statSync(file).size).toBeGreaterThan(12 * 1024 * 1024);
    const u = await s.client.user();
    /** One import into a new project, the server's longest event-loop hold while it ran. */
    const importOnce = async (query = '?contract=false') => {
      const p = await s.client.project(u.token);
      const uploader = `
        const body = require('node:fs').readFileSync(${JSON.stringify(file)});
        fetch(${JSON.stringify(`${s.client.base}/api/projects/${p.id}/import${query}`)}, {
          method: 'POST', body, headers: { authorization: 'Bearer ${u.token}', 'content-type': 'application/json' },
        }).then(async (r) => { const t = await r.text(); process.stdout.write(r.status + ' ' + t.length + ' ' + t.slice(0, 200) + ' … ' + t.slice(-300)); });`;
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['-e', uploader]);
        let text = '';
        child.stdout.on('data', (d) => {
          text += d;
        });
        child.on('error', reject);
        child.on('close', () => resolve(text));
      });
      delay.disable();
      expect(out).toMatch(/^200 /);
      return { p, worstMs: delay.max / 1e6, out };
    };
    // The bound is on what the import does to the event loop. On a 2-core machine running other
    // test files at once, the OS can also deschedule the loop; a hold the code causes shows in every
    // attempt (the old main-thread planner held it 360+ ms each time), a scheduling spike in one.
    let attempt = await importOnce();
    const holds = [attempt.worstMs];
    while (attempt.worstMs >= 100 && holds.length < 3) {
      attempt = await importOnce();
      holds.push(attempt.worstMs);
    }
    expect(attempt.worstMs, `the event loop was held ${holds.map((h) => h.toFixed(0)).join(', ')} ms`).toBeLessThan(
      100,
    );
    const p = attempt.p;

    // attached as the contract as well (the default), the document is checked and resolved in the
    // worker too; what is left on the main thread is storing it and its resolved form (38 MB of text
    // in one SQLite statement, ~0.25 s: docs/limits.md) — bounded here as a fault check, tried up to
    // three times as above (a hold the code causes shows in every attempt, a scheduling spike in one)
    let withContract = await importOnce('');
    const contractHolds = [withContract.worstMs];
    while (withContract.worstMs >= 1000 && contractHolds.length < 3) {
      withContract = await importOnce('');
      contractHolds.push(withContract.worstMs);
    }
    expect(withContract.out).toMatch(/"warnings":\[\]/);
    expect(
      withContract.worstMs,
      `the event loop was held ${contractHolds.map((h) => h.toFixed(0)).join(', ')} ms`,
    ).toBeLessThan(1000);
    const contract = await s.client.api('GET', `/api/projects/${withContract.p.id}/contract`, undefined, u.token);
    expect([contract.status, Object.keys(contract.json.paths)]).toEqual([200, expect.any(Array)]);

    const endpoints = (await s.client.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token)).json;
    expect(endpoints).toHaveLength(OPERATIONS);
    for (const e of endpoints as { method: string; path: string }[]) {
      const a = await s.client.mock(p.id, e.method, e.path.replace(':owner', 'octocat'));
      expect(a.status, `${e.method} ${e.path}`).toBe(200);
    }
    const sample = await s.client.mock(p.id, 'GET', '/repos/octocat/thing7');
    expect(Object.keys(sample.json)).toHaveLength(30);
    expect(sample.json.field_0).toMatchObject({ id: expect.any(Number), email: expect.stringContaining('@') });
  }, 240_000);
});
