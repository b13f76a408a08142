/**
 * What the rules-API tests share (test/rules/rules-api.test.ts, rules-limits.test.ts): the routes of a
 * rule, and the contract's error shape labelled with what was tried.
 */
import { expect } from 'vitest';
import { expectError as expectContractError } from './expect.js';
import type { HttpAnswer, TestClient } from './server.js';

export const rulesPath = (pid: string, eid: string) => `/api/projects/${pid}/endpoints/${eid}/rules`;
export const rulePath = (pid: string, eid: string, rid: string) => `${rulesPath(pid, eid)}/${rid}`;

/** The shared error-shape check, labelled with what was tried. */
export function expectError(r: HttpAnswer, status: number, code: string, what: string): void {
  expect({ what, status: r.status, code: r.json?.error?.code }).toEqual({ what, status, code });
  expectContractError(r, status, code);
}

/** statuses of n sequential GET requests to the fixture's endpoint */
export async function statuses(
  client: TestClient,
  f: { pid: string; endpoint: { path: string } },
  n: number,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await client.mock(f.pid, 'GET', f.endpoint.path)).status);
  return out;
}
