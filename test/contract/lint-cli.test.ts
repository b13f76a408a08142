/** `mockyard lint --contract` (docs/contract.md): mock files against a contract, offline, with CI exit codes. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/server.js';
import { PETSTORE } from './fixture.js';

const BIN = path.join(ROOT, 'bin', 'mockyard.mjs');

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: os.tmpdir() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const mapping = (url: string, status: number, body: unknown, method = 'GET') => ({
  request: { method, url },
  response: { status, jsonBody: body, headers: { 'Content-Type': 'application/json', 'X-Total': '1' } },
});

describe('mockyard lint --contract', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-lint-'));
  const contract = path.join(dir, 'openapi.json');
  fs.writeFileSync(contract, JSON.stringify(PETSTORE));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('exits 0 when every answer follows the contract, listing unmocked operations', async () => {
    const good = path.join(dir, 'good.json');
    const id = '6f1c2e0a-8d1b-4c3e-9f2a-1b2c3d4e5f60';
    fs.writeFileSync(good, JSON.stringify({ mappings: [mapping('/pets', 200, [{ id, name: 'Rex', price: 1 }])] }));
    const r = await cli(['lint', '--contract', contract, good]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('operations: 1 of 4 mocked');
    expect(r.stdout).toContain('? POST /pets: no endpoint mocks it');
    expect(r.stdout).toContain('no problems');
  });

  it('exits 1 and names each problem when an answer drifts', async () => {
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(
      bad,
      JSON.stringify({ mappings: [mapping('/pets', 200, [{ name: 5 }]), mapping('/pets', 201, {}, 'DELETE')] }),
    );
    const r = await cli(['lint', '--contract', contract, bad, '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    const get = report.endpoints.find((e: { method: string }) => e.method === 'GET');
    expect(get.problems.map((p: { pointer: string }) => p.pointer).sort()).toEqual(['/0/id', '/0/name', '/0/price']);
    expect(report.endpoints.find((e: { method: string }) => e.method === 'DELETE').operation).toBeNull();
  });

  it('exits 2 on wrong usage and 1 on a file it cannot read', async () => {
    expect((await cli(['lint', contract])).code).toBe(2);
    expect((await cli(['lint', '--contract', path.join(dir, 'nope.json'), dir])).code).toBe(1);
  });
});
