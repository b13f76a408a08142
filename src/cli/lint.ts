/**
 * `mockyard lint --contract <openapi file> <mocks file or folder>` (docs/contract.md): the mocks of
 * files (any format `serve --file` reads) checked against an OpenAPI contract, offline, for CI.
 * Exit 0 when no answer breaks the contract, 1 when one does (or a file cannot be read), 2 on usage.
 */
import fs from 'node:fs';
import { loadMockFiles } from '../files/load.js';
import { type LintReport, lintProject } from '../interop/contract-lint.js';
import { loadContract } from '../interop/contract-load.js';
import { importPool } from '../interop/openapi-import.js';
import { CliError, parse, print, UsageError } from './common.js';
import { HELP } from './help.js';

export function lintText(r: LintReport): string {
  const lines = [`operations: ${r.operations.mocked} of ${r.operations.total} mocked`];
  for (const o of r.operations.unmocked) lines.push(`  ? ${o.method} ${o.path}: no endpoint mocks it`);
  let problems = 0;
  for (const e of r.endpoints) {
    for (const p of e.problems) {
      problems++;
      lines.push(
        `  ✗ ${e.method} ${e.path} (${p.where})${p.pointer !== undefined ? ` ${p.pointer || '/'}` : ''}: ${p.message}`,
      );
    }
  }
  lines.push(problems === 0 ? 'no problems' : `${problems} problem${problems === 1 ? '' : 's'}`);
  return lines.join('\n');
}

export async function lint(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { contract: { type: 'string' }, json: { type: 'boolean' } });
  if (values.help) return print(HELP.lint);
  const contractFile = values.contract as string | undefined;
  if (!contractFile) throw new UsageError('--contract <openapi file> is required');
  if (positionals.length !== 1) throw new UsageError('lint takes one <mocks file or folder>');
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(contractFile);
  } catch (e) {
    throw new CliError(
      `cannot read ${contractFile}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
    );
  }
  try {
    const loaded = await loadContract('cli', bytes, !/\.json$/i.test(contractFile));
    const mocks = await loadMockFiles(positionals[0]);
    const endpoints = mocks.endpoints.map((e) => ({
      id: `${e.method} ${e.path}`,
      method: e.method,
      path: e.path,
      statusCode: e.statusCode,
      responseBody: e.responseBody,
      contentType: e.contentType,
      headers: e.headers ?? {},
      rules: e.rules.map((r, i) => ({
        id: r.name || String(i),
        response: r.response,
        conditions: r.conditions,
        active: r.active,
      })),
    }));
    const report = lintProject(loaded, endpoints, mocks.config ?? {});
    print(values.json ? JSON.stringify(report, null, 2) : lintText(report));
    if (report.endpoints.some((e) => e.problems.length > 0)) process.exitCode = 1;
  } catch (e) {
    if (e instanceof CliError || e instanceof UsageError) throw e;
    throw new CliError(e instanceof Error ? e.message : String(e));
  } finally {
    await importPool().close();
  }
}
