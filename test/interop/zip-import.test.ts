/**
 * Folders and zips (docs/interop.md "Fidelity"docs/interop.md "Folders and zips"): `POST …/import` with
 * `Content-Type: application/zip` and `mockyard import <folder>` read WireMock `__files` bodies,
 * Mockoon file bodies and a split OpenAPI description — never a file outside the upload.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, request, startTestServer, type TestServer } from '../helpers/server.js';

const enc = (v: unknown) => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));
const zip = (files: Record<string, unknown>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, enc(v)])));

/** WireMock's folder: mappings beside __files, one stub that tries to climb out of __files. */
const WIREMOCK_FOLDER = {
  'mappings/hello.json': {
    mappings: [
      {
        request: { method: 'GET', url: '/hello' },
        response: { status: 200, bodyFileName: 'hello.json', headers: { 'Content-Type': 'application/json' } },
      },
      { request: { method: 'GET', url: '/escape' }, response: { status: 200, bodyFileName: '../secret.txt' } },
    ],
  },
  '__files/hello.json': '{"hello":"from a file"}',
  'secret.txt': 'must not be served',
};

/** A Mockoon environment whose route serves a file beside it. */
const MOCKOON_FOLDER = {
  'env/env.json': {
    lastMigration: 32,
    endpointPrefix: '',
    headers: [],
    data: [],
    routes: [
      {
        type: 'http',
        method: 'get',
        endpoint: 'report',
        responses: [
          {
            uuid: 'r',
            statusCode: 200,
            bodyType: 'FILE',
            filePath: 'files/report.csv',
            headers: [],
            rules: [],
            default: true,
          },
        ],
      },
      {
        type: 'http',
        method: 'get',
        endpoint: 'inline',
        responses: [
          {
            uuid: 'i',
            statusCode: 200,
            bodyType: 'FILE',
            filePath: 'files/page.json',
            sendFileAsBody: true,
            headers: [],
            rules: [],
            default: true,
          },
        ],
      },
      {
        type: 'http',
        method: 'get',
        endpoint: 'out',
        responses: [
          {
            uuid: 'o',
            statusCode: 200,
            bodyType: 'FILE',
            filePath: '../../etc/hostname',
            body: 'inline',
            headers: [],
            rules: [],
            default: true,
          },
        ],
      },
    ],
  },
  'env/files/report.csv': 'a,b\n1,2\n',
  'env/files/page.json': '{"page":1}',
};

/** An OpenAPI description split in files. */
const OPENAPI_FOLDER = {
  'api/openapi.yaml': `openapi: 3.0.3
info: {title: split, version: "1"}
paths:
  /users/{id}:
    get:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "./schemas/user.yaml#/User"}
              example: {$ref: "./examples/ada.json"}
`,
  'api/schemas/user.yaml': 'User:\n  type: object\n  properties:\n    id: {type: integer}\n    name: {type: string}\n',
  'api/examples/ada.json': { id: 1, name: 'Ada' },
};

describe('imports of folders and zips (sqlite)', () => {
  let s: TestServer;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mockyard-zip-'));
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(async () => {
    await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function project() {
    const u = await s.client.user();
    const p = await s.client.project(u.token);
    return { token: u.token, pid: p.id };
  }
  const importZip = (token: string, pid: string, body: Uint8Array, route = 'import') =>
    request(`${s.client.base}/api/projects/${pid}/${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/zip' },
      body: Buffer.from(body),
    });

  it('WireMock: bodyFileName from __files, never from outside it', async () => {
    const { token, pid } = await project();
    const r = await importZip(token, pid, zip(WIREMOCK_FOLDER));
    expect(r.status, r.text).toBe(200);
    expect(r.json.format).toBe('wiremock');
    expect(r.json.warnings).toContainEqual({
      pointer: expect.stringContaining('/mappings/1/response/bodyFileName'),
      message: expect.any(String),
    });
    const hello = await s.client.mock(pid, 'GET', '/hello');
    expect(hello.json).toEqual({ hello: 'from a file' });
    const escaped = await s.client.mock(pid, 'GET', '/escape');
    expect(escaped.text).not.toContain('must not be served');
  });

  it('Mockoon: a FILE body read beside the environment (type from its name, an attachment unless sent as body)', async () => {
    const { token, pid } = await project();
    const r = await importZip(token, pid, zip(MOCKOON_FOLDER));
    expect(r.status, r.text).toBe(200);
    const report = await s.client.mock(pid, 'GET', '/report');
    expect(report.text).toBe('a,b\n1,2\n');
    expect(report.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(report.headers.get('content-disposition')).toBe('attachment; filename="report.csv"');
    const inline = await s.client.mock(pid, 'GET', '/inline');
    expect(inline.json).toEqual({ page: 1 });
    expect(inline.headers.get('content-disposition')).toBeNull();
    // a path out of the upload is not read: the route's inline body stays, with the warning
    expect((await s.client.mock(pid, 'GET', '/out')).text).toBe('inline');
  });

  it('OpenAPI split in files: relative $refs resolved inside the zip; one that leaves it is refused', async () => {
    const { token, pid } = await project();
    const r = await importZip(token, pid, zip(OPENAPI_FOLDER));
    expect(r.status, r.text).toBe(200);
    expect(r.json.created.map((e: { path: string }) => e.path)).toEqual(['/users/:id']);
    expect((await s.client.mock(pid, 'GET', '/users/1')).json).toEqual({ id: 1, name: 'Ada' });

    const out = await importZip(
      token,
      pid,
      zip({
        'openapi.json': {
          openapi: '3.0.3',
          info: { title: 't', version: '1' },
          paths: { '/x': { $ref: '../paths.yaml#/x' } },
        },
      }),
    );
    expect(out.status).toBe(400);
    expect(out.json.error.code).toBe('validation_failed');
    expect(out.json.error.message).toContain('outside the upload');
  });

  it('refuses what is not a zip (400) and a zip that inflates past the import limit (413)', async () => {
    const { token, pid } = await project();
    const notZip = await importZip(token, pid, enc('not a zip at all'));
    expect(notZip.status).toBe(400);
    const bomb = zipSync({ 'big.json': new Uint8Array(33 * 1024 * 1024) }, { level: 9 });
    expect(bomb.byteLength).toBeLessThan(1024 * 1024);
    const big = await importZip(token, pid, bomb);
    expect(big.status).toBe(413);
    expect(big.json.error.code).toBe('payload_too_large');
    // nothing was created by either
    expect((await s.client.api('GET', `/api/projects/${pid}/endpoints`, undefined, token)).json).toEqual([]);
  });

  it('mockyard import <folder> sends the folder as a zip', async () => {
    const u = await s.client.user();
    const folder = path.join(dir, 'wm');
    for (const [rel, content] of Object.entries(WIREMOCK_FOLDER)) {
      fs.mkdirSync(path.dirname(path.join(folder, rel)), { recursive: true });
      fs.writeFileSync(path.join(folder, rel), typeof content === 'string' ? content : JSON.stringify(content));
    }
    const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          path.join(ROOT, 'bin/mockyard.mjs'),
          'import',
          folder,
          '--project',
          'Folder',
          '--url',
          s.client.base,
          '--token',
          u.token,
          '--json',
        ],
        { env: { ...process.env, MOCKYARD_TOKEN: '', MOCKYARD_URL: '' } },
      );
      let out = '';
      child.stdout.on('data', (c) => {
        out += c;
      });
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(run.code, run.out).toBe(0);
    const pid = JSON.parse(run.out).project.id;
    expect((await s.client.mock(pid, 'GET', '/hello')).json).toEqual({ hello: 'from a file' });
  });
});
