/**
 * `mockyard mcp`: the MCP server over stdio for an agent that starts it as a subprocess, talking to a
 * running service (MOCKYARD_URL, MOCKYARD_TOKEN or --url/--token). The same tools as `/mcp`; stdout
 * carries the protocol only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connection, parse, print, UsageError } from './common.js';
import { HELP } from './help.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function mcp(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { url: { type: 'string' }, token: { type: 'string' } });
  if (values.help) return print(HELP.mcp);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const conn = connection(values as { url?: string; token?: string });
  const [{ httpCaller }, { createMcpServer }, { StdioServerTransport }] = await Promise.all([
    import('../mcp/caller.js'),
    import('../mcp/server.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const caller = httpCaller(conn.url, conn.token);
  // a read key is offered the read tools: it is refused a write before anything is looked up
  const probe = await caller.api('PATCH', '/api/projects/mcp-scope-probe', {}).catch(() => null);
  const readOnly = probe?.status === 403;
  const version = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version as string;
  const server = createMcpServer(caller, { readOnly, version });
  await server.connect(new StdioServerTransport());
}
