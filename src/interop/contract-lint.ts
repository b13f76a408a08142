/**
 * Lint (docs/contract.md): every endpoint's default answer and every rule step's answer, rendered
 * with a sample request built from the contract's examples, checked against the operation it
 * mocks; and the operations no endpoint mocks. The API (`GET …/contract/lint`) and the CLI
 * (`mockyard lint --contract`) print the same report.
 */
import type { Violation } from '../domain/contract.js';
import type { Endpoint, RuleRecord } from '../domain/model.js';
import { MockContext, MockRequestView } from '../runtime/context.js';
import { type CompiledContract, compileContract, type Operation } from '../runtime/contract/compile.js';
import { responseViolations } from '../runtime/contract/response.js';
import { CapExceeded, compileTemplate } from '../runtime/template.js';
import { NO_MATCH } from './route-book.js';

export interface LintProblem {
  where: string;
  pointer?: string;
  message: string;
}

export interface LintReport {
  operations: { total: number; mocked: number; unmocked: { method: string; path: string }[] };
  endpoints: { endpointId: string; method: string; path: string; operation: string | null; problems: LintProblem[] }[];
}

/** What lint reads of an endpoint: its default answer and its rules' steps. */
export type LintEndpoint = Pick<
  Endpoint,
  'id' | 'method' | 'path' | 'statusCode' | 'responseBody' | 'contentType' | 'headers'
> & {
  rules: (Pick<RuleRecord, 'id' | 'response'> & Partial<Pick<RuleRecord, 'conditions' | 'active'>>)[];
};

/** The mock path of a pattern with each `:param` replaced by a sample value. */
const samplePath = (pattern: string) => pattern.replace(/:([A-Za-z0-9_]+)/g, '1').replace(/\*$/, 'x');

function render(template: string, method: string, path: string, config: Record<string, string>): string {
  const view = new MockRequestView(method, samplePath(path), '', {}, []);
  const ctx = new MockContext(view, 'lint');
  ctx.config = new Map(Object.entries(config));
  try {
    return compileTemplate(template)(ctx);
  } catch (e) {
    if (e instanceof CapExceeded) return '';
    throw e;
  }
}

function check(
  op: Operation,
  where: string,
  status: number,
  headers: Record<string, string>,
  body: string,
): LintProblem[] {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return responseViolations(op, status, (n) => lower.get(n), body).map((v: Violation) => ({
    where,
    ...(v.pointer !== undefined ? { pointer: v.pointer } : {}),
    message: v.in === 'body' || v.in === 'status' ? v.message : `${v.name ?? v.in}: ${v.message}`,
  }));
}

export function lintEndpoints(
  contract: CompiledContract,
  endpoints: readonly LintEndpoint[],
  config: Record<string, string> = {},
): LintReport {
  const mocked = new Set<string>();
  const out: LintReport['endpoints'] = [];
  for (const e of endpoints) {
    const op = contract.operationFor(e.method, e.path);
    const problems: LintProblem[] = [];
    if (!op) {
      out.push({
        endpointId: e.id,
        method: e.method,
        path: e.path,
        operation: null,
        problems: [{ where: 'default', message: `no operation of the contract matches ${e.method} ${e.path}` }],
      });
      continue;
    }
    mocked.add(op.id);
    const base = { 'content-type': e.contentType, ...e.headers };
    // a rule without conditions answers every request: the default is never sent (WireMock's imports)
    const shadowed = e.rules.some((r) => r.active !== false && r.response && (r.conditions?.length ?? 1) === 0);
    // an import's "no stub matched" answer (route-book.ts) is the tool's 404, not an answer it mocks
    const noMatch = e.rules.length > 0 && e.statusCode === NO_MATCH.statusCode && e.responseBody === NO_MATCH.body;
    if (!shadowed && !noMatch)
      problems.push(...check(op, 'default', e.statusCode, base, render(e.responseBody, e.method, e.path, config)));
    for (const r of e.rules) {
      r.response?.steps.forEach((s, i) => {
        const where = `rule:${r.id}/step:${i}`;
        const streamed = s.events !== undefined || s.llm !== undefined || s.fault !== undefined;
        const headers = { ...base, ...s.headers };
        const body = streamed ? '' : render(s.body, e.method, e.path, config);
        const found = check(op, where, s.statusCode, headers, body);
        // a stream's body is its events: only the status and headers are checked
        problems.push(
          ...(streamed ? found.filter((p) => p.pointer === undefined && !p.message.includes('JSON')) : found),
        );
      });
    }
    out.push({ endpointId: e.id, method: e.method, path: e.path, operation: `${op.method} ${op.template}`, problems });
  }
  const unmocked = contract.operations
    .filter((o) => !mocked.has(o.id))
    .map((o) => ({ method: o.method, path: o.template }));
  return {
    operations: { total: contract.operations.length, mocked: mocked.size, unmocked },
    endpoints: out,
  };
}

/** Lint of a stored contract (resolved JSON) and a project's endpoints with their rules. */
export function lintProject(
  c: { format: string; resolved: string },
  endpoints: readonly LintEndpoint[],
  config: Record<string, string>,
): LintReport {
  return lintEndpoints(compileContract(c.format, JSON.parse(c.resolved)), endpoints, config);
}
