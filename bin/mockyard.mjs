#!/usr/bin/env node
// The `mockyard` command line (docs/interop.md): serve, import an OpenAPI document, export a project,
// and an admin console command to set a user's plan. Plain ESM on the built server in dist/.
// Exit codes: 0 done, 1 failed (unreachable server, HTTP error, missing user, …), 2 wrong usage.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_URL = 'http://127.0.0.1:3000';
const PLANS = ['free', 'pro', 'business'];
const FORMATS = ['openapi', 'wiremock', 'mockoon', 'postman', 'har'];

class UsageError extends Error {}
class CliError extends Error {}

const HELP = {
  top: `Usage: mockyard <command> [options]

Commands:
  serve                          run the service (management API, dashboard and mock traffic)
  serve --file <path>            serve the mocks of a file or folder at the root path, no account
  import <file>                  import OpenAPI, Swagger, WireMock, Mockoon, Postman, HAR or an export
  export <project>               print a project as a JSON export document
  user set-plan <email> <plan>   set a user's plan (free, pro, business) in the database

Options:
  -h, --help      help for mockyard or for a command (mockyard <command> --help)
  -v, --version   print the version

Commands that talk to a running service take --url (default ${DEFAULT_URL}, or MOCKYARD_URL)
and --token (or MOCKYARD_TOKEN): a session token from POST /api/auth/login.`,
  serve: `Usage: mockyard serve [--port N] [--host H] [--database URL]
       mockyard serve --file <file-or-folder> [--watch] [--port N] [--host H]

Runs the service in this process (builds dist/ first when it is missing). Options override the
environment (PORT, HOST, DATABASE_URL); every other variable of the service applies as usual.

With --file, serves the mocks of a file or a folder of files — a Mockyard export, OpenAPI 3.x,
Swagger 2.0, WireMock mappings, a Mockoon environment, a Postman collection or a HAR capture, JSON or
YAML — with no account, on an in-memory database, at the root path (GET /api/users, no prefix). The
management API answers under /api to requests with MOCKYARD_ADMIN_TOKEN as bearer token. A file that
cannot be read or parsed exits with code 1 and names it.

Options:
  --port N          listen port (default 3000)
  --host H          listen address (default 127.0.0.1)
  --database URL    sqlite:<file>, sqlite::memory: or postgres://… (default sqlite:./data/mockyard.db)
  --file PATH       serve the mocks of this file or folder (see above)
  --watch           with --file: reload on change, keeping the sequence positions of unchanged rules
  -h, --help        this help`,
  import: `Usage: mockyard import <file> --project <name> [--format F] [--url URL] [--token T]

Imports a document into the project with that name (or id), creating the project when there is none:
OpenAPI 3.0/3.1, Swagger 2.0, WireMock mappings, a Mockoon environment, a Postman collection v2.x, a
HAR capture or a Mockyard export (.json, .yaml or .yml). The format is detected unless --format says it.
Prints the report: created, replaced, skipped and the warnings for what was not translated.

Options:
  --project NAME          target project: a name or an id (required)
  --format F              openapi, wiremock, mockoon, postman or har (default: detected)
  --on-conflict MODE      fail (default: nothing is created), skip or replace existing endpoints
  --json                  print the service's answer as JSON
  --url URL               service address (default ${DEFAULT_URL}, or MOCKYARD_URL)
  --token T               session token (or MOCKYARD_TOKEN)
  -h, --help              this help`,
  export: `Usage: mockyard export <project-name-or-id> [--storage] [--url URL] [--token T]

Prints the project as one JSON document (the format POST /api/projects/import takes) on stdout.

Options:
  --storage         include the endpoints' stored variables
  --url URL         service address (default ${DEFAULT_URL}, or MOCKYARD_URL)
  --token T         session token (or MOCKYARD_TOKEN)
  -h, --help        this help`,
  user: `Usage: mockyard user set-plan <email> <plan> [--database URL]

Sets a user's plan (${PLANS.join(', ')}) directly in the database, like an admin console. The database is
--database, else DATABASE_URL, else sqlite:./data/mockyard.db.

Options:
  --database URL    the service's database
  -h, --help        this help`,
};

function parse(args, options, allowPositionals = true) {
  // A value may start with '-' (session tokens are base64url): `--token -x` means `--token=-x`.
  const joined = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i].startsWith('--') ? args[i].slice(2) : null;
    if (name && options[name]?.type === 'string' && i + 1 < args.length) joined.push(`${args[i]}=${args[++i]}`);
    else joined.push(args[i]);
  }
  try {
    return parseArgs({
      args: joined,
      options: { help: { type: 'boolean', short: 'h' }, ...options },
      allowPositionals,
      strict: true,
    });
  } catch (e) {
    throw new UsageError(e.message);
  }
}

function ensureBuilt() {
  if (fs.existsSync(path.join(root, 'dist', 'main.js'))) return;
  process.stderr.write('mockyard: dist/ is missing, building first…\n');
  try {
    execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], {
      cwd: root,
      stdio: ['ignore', process.stderr, process.stderr],
    });
  } catch {
    throw new CliError('the build failed (see above)');
  }
}

const distModule = (rel) => import(pathToFileURL(path.join(root, 'dist', rel)).href);

// ------------------------------------------------------------------------------------------------
// HTTP API client

function connection(values) {
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

async function api(conn, method, p, body, contentType = 'application/json') {
  const headers = { authorization: `Bearer ${conn.token}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = contentType;
  let res;
  try {
    res = await fetch(`${conn.url}${p}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
  } catch (e) {
    const why = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? 'network error';
    throw new CliError(`cannot reach Mockyard at ${conn.url} (${why}); is \`mockyard serve\` running?`);
  }
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const err = json?.error;
    let msg = err ? `${res.status} ${err.code}: ${err.message}` : `${res.status} ${text.slice(0, 200)}`;
    for (const d of err?.details ?? []) msg += `\n  ${d.path}: ${d.message}`;
    throw new CliError(msg);
  }
  return json;
}

/** A project by id, else by exact name; null when there is none. */
async function findProject(conn, ref) {
  const projects = await api(conn, 'GET', '/api/projects');
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

// ------------------------------------------------------------------------------------------------
// commands

async function serve(args) {
  const { values, positionals } = parse(args, {
    port: { type: 'string' },
    host: { type: 'string' },
    database: { type: 'string' },
    file: { type: 'string' },
    watch: { type: 'boolean' },
  });
  if (values.help) return print(HELP.serve);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  if (values.port !== undefined) {
    const n = Number(values.port);
    if (!/^\d+$/.test(values.port) || n > 65535) throw new UsageError('--port must be an integer from 0 to 65535');
    process.env.PORT = values.port;
  }
  if (values.host !== undefined) process.env.HOST = values.host;
  if (values.file === undefined) {
    if (values.watch) throw new UsageError('--watch needs --file');
    if (values.database !== undefined) process.env.DATABASE_URL = values.database;
    ensureBuilt();
    await distModule('main.js');
    return;
  }
  if (values.database !== undefined) throw new UsageError('--file serves from memory: --database does not apply');
  ensureBuilt();
  await serveFile(values.file, values.watch === true);
}

/** `serve --file`: exit 1 naming the file when it cannot be read, parsed or recognised. */
async function serveFile(file, watch) {
  const [{ serveFiles }, { MockFileError }, { ConfigError }] = await Promise.all([
    distModule('files/serve.js'),
    distModule('files/load.js'),
    distModule('config.js'),
  ]);
  let serving;
  try {
    serving = await serveFiles({ file, watch });
  } catch (e) {
    if (e instanceof MockFileError) throw new CliError(e.message);
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw new CliError(`cannot serve ${file}: ${e.message}`);
  }
  const { running } = serving;
  print(`Mockyard serving ${file} at ${running.url}/${watch ? ' (watching for changes)' : ''}`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    serving.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function importOpenApi(args) {
  const { values, positionals } = parse(args, {
    project: { type: 'string' },
    format: { type: 'string' },
    'on-conflict': { type: 'string' },
    json: { type: 'boolean' },
    url: { type: 'string' },
    token: { type: 'string' },
  });
  if (values.help) return print(HELP.import);
  if (positionals.length !== 1) throw new UsageError('import takes one <file>');
  const format = values.format;
  if (format !== undefined && !FORMATS.includes(format))
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
  if (!values.project?.trim()) throw new UsageError('--project <name> is required');
  const mode = values['on-conflict'] ?? 'fail';
  if (!['fail', 'skip', 'replace'].includes(mode)) throw new UsageError('--on-conflict must be fail, skip or replace');
  const conn = connection(values);
  const file = positionals[0];
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  const ext = path.extname(file).toLowerCase();
  const json = ext === '.json' || (ext !== '.yaml' && ext !== '.yml' && /^\s*[{[]/.test(text));
  const contentType = json ? 'application/json' : 'application/yaml';

  let project = await findProject(conn, values.project);
  let createdProject = false;
  if (!project) {
    project = await api(conn, 'POST', '/api/projects', { name: values.project });
    createdProject = true;
  }
  const answer = await api(
    conn,
    'POST',
    `/api/projects/${encodeURIComponent(project.id)}/import${format ? `/${format}` : ''}?onConflict=${mode}`,
    text,
    contentType,
  );
  if (values.json) return print(JSON.stringify({ project, ...answer }, null, 2));
  const lines = [
    `${createdProject ? 'Created project' : 'Project'} "${project.name}" (${project.id}); mock URL ${conn.url}/m/${project.id}`,
    `${answer.format}: ${answer.created.length} created, ${answer.replaced.length} replaced, ${answer.skipped.length} skipped, ${answer.warnings.length} warnings`,
  ];
  for (const e of answer.created) lines.push(`  + ${e.method} ${e.path} → ${e.statusCode}`);
  for (const e of answer.replaced) lines.push(`  ~ ${e.method} ${e.path} → ${e.statusCode}`);
  for (const s of answer.skipped) lines.push(`  - ${s.method} ${s.path}: ${s.reason}`);
  for (const w of answer.warnings) lines.push(`  ! ${w.pointer || '/'}: ${w.message}`);
  print(lines.join('\n'));
}

async function exportProject(args) {
  const { values, positionals } = parse(args, {
    storage: { type: 'boolean' },
    url: { type: 'string' },
    token: { type: 'string' },
  });
  if (values.help) return print(HELP.export);
  if (positionals.length !== 1) throw new UsageError('export takes one <project-name-or-id>');
  const conn = connection(values);
  const project = await findProject(conn, positionals[0]);
  if (!project) throw new CliError(`no project named "${positionals[0]}" (or with that id)`);
  const q = values.storage ? '?storage=true' : '';
  const doc = await api(conn, 'GET', `/api/projects/${encodeURIComponent(project.id)}/export${q}`);
  print(JSON.stringify(doc, null, 2));
}

async function user(args) {
  const { values, positionals } = parse(args, { database: { type: 'string' } });
  if (values.help || positionals.length === 0) {
    if (!values.help) throw new UsageError(`user needs a subcommand\n\n${HELP.user}`);
    return print(HELP.user);
  }
  const [sub, email, plan, ...rest] = positionals;
  if (sub !== 'set-plan') throw new UsageError(`unknown user subcommand "${sub}" (try: mockyard user set-plan)`);
  if (!email || !plan || rest.length > 0) throw new UsageError('usage: mockyard user set-plan <email> <plan>');
  if (!PLANS.includes(plan)) throw new UsageError(`plan must be one of ${PLANS.join(', ')}`);
  ensureBuilt();
  const { loadConfig, ConfigError } = await distModule('config.js');
  let databaseUrl;
  try {
    databaseUrl = loadConfig({ DATABASE_URL: values.database ?? process.env.DATABASE_URL }).databaseUrl;
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
  if (databaseUrl.startsWith('sqlite:') && databaseUrl !== 'sqlite::memory:') {
    const file = databaseUrl.slice('sqlite:'.length);
    if (!fs.existsSync(file)) throw new CliError(`no database at ${file} (set --database or DATABASE_URL)`);
  }
  const { openStore } = await distModule('store/index.js');
  let store;
  try {
    store = await openStore(databaseUrl);
  } catch (e) {
    throw new CliError(`cannot open the database: ${e.message}`);
  }
  try {
    const found = await store.users.findByEmail(email);
    if (!found) throw new CliError(`no user with email ${email}`);
    const updated = await store.users.setPlan(found.id, plan);
    print(`${updated.email}: plan ${updated.plan} (was ${found.plan})`);
  } finally {
    await store.close();
  }
}

function print(text) {
  process.stdout.write(`${text}\n`);
}

async function main(argv) {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      throw new UsageError(`a command is required\n\n${HELP.top}`);
    case '-h':
    case '--help':
      return print(HELP.top);
    case 'help':
      return print(HELP[rest[0]] ?? HELP.top);
    case '-v':
    case '--version':
      return print(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version);
    case 'serve':
      return serve(rest);
    case 'import':
      return importOpenApi(rest);
    case 'export':
      return exportProject(rest);
    case 'user':
      return user(rest);
    default:
      throw new UsageError(`unknown command "${command}"\n\n${HELP.top}`);
  }
}

main(process.argv.slice(2)).catch((e) => {
  if (e instanceof UsageError) {
    process.stderr.write(`mockyard: ${e.message}\n`);
    process.exitCode = 2;
  } else if (e instanceof CliError) {
    process.stderr.write(`mockyard: ${e.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`mockyard: ${e?.stack ?? e}\n`);
    process.exitCode = 1;
  }
});
