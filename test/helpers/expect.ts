/**
 * Assertions shared by the API tests: the contract's error shape (docs/api.md "Conventions") and record shapes.
 */
import { expect } from 'vitest';
import type { HttpAnswer } from './server.js';

/** A version-7 UUID (RFC 9562): what a create, or a seed item without an id, gets. */
export const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** `{error: {code, message, details?}}` with this status and code, JSON, and no stack trace. */
export function expectError(r: HttpAnswer, status: number, code: string): void {
  expect({ status: r.status, body: r.text.slice(0, 500) }).toMatchObject({ status });
  expect(r.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(r.json, r.text.slice(0, 500)).toBeTypeOf('object');
  // a mock request no endpoint matched may add the nearest endpoints (docs/api.md "Mock traffic")
  expect(Object.keys(r.json)).toEqual(
    code === 'mock_not_found' && 'nearest' in r.json ? ['error', 'nearest'] : ['error'],
  );
  const e = r.json.error;
  expect(e.code).toBe(code);
  expect(typeof e.message).toBe('string');
  expect(e.message.length).toBeGreaterThan(0);
  for (const k of Object.keys(e)) expect(['code', 'message', 'details']).toContain(k);
  if (e.details !== undefined) {
    expect(Array.isArray(e.details)).toBe(true);
    expect(e.details.length).toBeGreaterThan(0);
    for (const d of e.details) {
      expect(typeof d.path).toBe('string');
      expect(typeof d.message).toBe('string');
    }
  }
  expectNoStack(r.text);
}

/** A validation_failed 400 whose details name `path` (e.g. '/name'). */
export function expectValidation(r: HttpAnswer, path?: string): void {
  expectError(r, 400, 'validation_failed');
  expect(Array.isArray(r.json.error.details)).toBe(true);
  if (path !== undefined) {
    const paths = r.json.error.details.map((d: { path: string }) => d.path);
    expect(paths, r.text).toContain(path);
  }
}

/** No trace of a stack or of source files in an answer. */
export function expectNoStack(text: string): void {
  expect(text).not.toMatch(/\n\s+at |\bat [\w.<>]+ \(|\.ts:\d+|\.js:\d+|node:internal|"stack"/);
}

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
