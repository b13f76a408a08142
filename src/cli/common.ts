/**
 * What every `mockyard` command shares: its two kinds of failure (exit 2 for wrong usage, 1 for the
 * rest), argument parsing, printing, and the HTTP client of the commands that talk to a running
 * service.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_URL } from './help.js';

/** Wrong usage: exit code 2. */
export class UsageError extends Error {}
/** The command failed (unreachable server, HTTP error, missing user, …): exit code 1. */
export class CliError extends Error {}

type Options = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/**
 * The arguments, strictly: an unknown option is a UsageError. A value may start with `-` (`--token -x`),
 * and so may a positional longer than two characters: a project id (base64url, one in 64 starts with
 * `-`) or name is no option, since no option is written `-xyz` (`-h` is the one short option).
 */
export function parse(
  args: string[],
  options: Options,
  allowPositionals = true,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  const flags: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      rest.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('--') || (a.startsWith('-') && a.length === 2)) {
      const name = a.startsWith('--') ? a.slice(2) : null;
      if (name && options[name]?.type === 'string' && i + 1 < args.length) flags.push(`${a}=${args[++i]}`);
      else flags.push(a);
    } else rest.push(a);
  }
  // the positionals after `--`, in the order given: parseArgs reads none of them as an option
  const joined = rest.length > 0 ? [...flags, '--', ...rest] : flags;
  try {
    const { values, positionals } = parseArgs({
      args: joined,
      options: { help: { type: 'boolean', short: 'h' }, ...options },
      allowPositionals,
      strict: true,
    });
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

export interface Connection {
  url: string;
  token: string;
}

/** The service's address and token from the options or the environment. */
export function connection(values: { url?: string; token?: string }): Connection {
  const url = (values.url ?? process.env.MOCKYARD_URL ?? DEFAULT_URL).replace(/\/+$/, '');
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new UsageError(`--url must be an http(s) URL, got "${url}"`);
  }
  const token = values.token ?? process.env.MOCKYARD_TOKEN;
  if (!token) throw new UsageError('a token is required: --token T or MOCKYARD_TOKEN (from POST /api/auth/login)');
  return { url, token };
}

interface ApiErrorBody {
  error?: { code: string; message: string; details?: { path: string; message: string }[] };
}

/** One call of the management API; its JSON answer, or a CliError with the service's error. */
export async function api<T = unknown>(
  conn: Connection,
  method: string,
  p: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${conn.token}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = contentType;
  let res: Response;
  try {
    res = await fetch(`${conn.url}${p}`, {
      method,
      headers,
      body:
        body === undefined
          ? undefined
          : typeof body === 'string' || body instanceof Uint8Array
            ? body
            : JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
  } catch (e) {
    const err = e as { cause?: { code?: string; message?: string }; message?: string };
    const why = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? 'network error';
    throw new CliError(`cannot reach Mockyard at ${conn.url} (${why}); is \`mockyard serve\` running?`);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const err = (json as ApiErrorBody | undefined)?.error;
    let msg = err ? `${res.status} ${err.code}: ${err.message}` : `${res.status} ${text.slice(0, 200)}`;
    for (const d of err?.details ?? []) msg += `\n  ${d.path}: ${d.message}`;
    throw new CliError(msg);
  }
  return json as T;
}

export interface ProjectRef {
  id: string;
  name: string;
}

/** A project by id, else by exact name; null when there is none. */
export async function findProject(conn: Connection, ref: string): Promise<ProjectRef | null> {
  const projects = await api<ProjectRef[]>(conn, 'GET', '/api/projects');
  const byId = projects.find((p) => p.id === ref);
  if (byId) return byId;
  const named = projects.filter((p) => p.name === ref);
  if (named.length > 1) {
    throw new CliError(
      `${named.length} projects are named "${ref}": pass the id (${named.map((p) => p.id).join(', ')})`,
    );
  }
  return named[0] ?? null;
}
