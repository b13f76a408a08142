/** `mockyard user set-plan <email> <plan>`: an admin console command on the service's database. */
import fs from 'node:fs';
import { ConfigError, loadConfig } from '../config.js';
import type { Plan } from '../domain/model.js';
import { CliError, parse, print, UsageError } from './common.js';
import { HELP, PLANS } from './help.js';

export async function user(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { database: { type: 'string' } });
  if (values.help || positionals.length === 0) {
    if (!values.help) throw new UsageError(`user needs a subcommand\n\n${HELP.user}`);
    return print(HELP.user);
  }
  const [sub, email, plan, ...rest] = positionals;
  if (sub !== 'set-plan') throw new UsageError(`unknown user subcommand "${sub}" (try: mockyard user set-plan)`);
  if (!email || !plan || rest.length > 0) throw new UsageError('usage: mockyard user set-plan <email> <plan>');
  if (!(PLANS as readonly string[]).includes(plan)) throw new UsageError(`plan must be one of ${PLANS.join(', ')}`);
  let databaseUrl: string;
  try {
    databaseUrl = loadConfig({
      DATABASE_URL: (values.database as string | undefined) ?? process.env.DATABASE_URL,
    }).databaseUrl;
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
  if (databaseUrl.startsWith('sqlite:') && databaseUrl !== 'sqlite::memory:') {
    const file = databaseUrl.slice('sqlite:'.length);
    if (!fs.existsSync(file)) throw new CliError(`no database at ${file} (set --database or DATABASE_URL)`);
  }
  const { openStore } = await import('../store/index.js');
  let store: Awaited<ReturnType<typeof openStore>>;
  try {
    store = await openStore(databaseUrl);
  } catch (e) {
    throw new CliError(`cannot open the database: ${(e as Error).message}`);
  }
  try {
    const found = await store.users.findByEmail(email);
    if (!found) throw new CliError(`no user with email ${email}`);
    const updated = await store.users.setPlan(found.id, plan as Plan);
    if (!updated) throw new CliError(`no user with email ${email}`);
    print(`${updated.email}: plan ${updated.plan} (was ${found.plan})`);
  } finally {
    await store.close();
  }
}
