/** `mockyard serve`: the service in this process, or `--file`: the mocks of a file or folder at the root path. */
import { ConfigError } from '../config.js';
import { CliError, parse, print, UsageError } from './common.js';
import { HELP } from './help.js';

export async function serve(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, {
    port: { type: 'string' },
    host: { type: 'string' },
    database: { type: 'string' },
    file: { type: 'string' },
    watch: { type: 'boolean' },
  });
  if (values.help) return print(HELP.serve);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const port = values.port as string | undefined;
  if (port !== undefined) {
    if (!/^\d+$/.test(port) || Number(port) > 65535) throw new UsageError('--port must be an integer from 0 to 65535');
    process.env.PORT = port;
  }
  if (values.host !== undefined) process.env.HOST = values.host as string;
  const file = values.file as string | undefined;
  if (file === undefined) {
    if (values.watch) throw new UsageError('--watch needs --file');
    if (values.database !== undefined) process.env.DATABASE_URL = values.database as string;
    await import('../main.js');
    return;
  }
  if (values.database !== undefined) throw new UsageError('--file serves from memory: --database does not apply');
  await serveFile(file, values.watch === true);
}

/** `serve --file`: exit 1 naming the file when it cannot be read, parsed or recognised. */
async function serveFile(file: string, watch: boolean): Promise<void> {
  const [{ serveFiles }, { MockFileError }] = await Promise.all([
    import('../files/serve.js'),
    import('../files/load.js'),
  ]);
  let serving: Awaited<ReturnType<typeof serveFiles>>;
  try {
    serving = await serveFiles({ file, watch });
  } catch (e) {
    if (e instanceof MockFileError) throw new CliError(e.message);
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw new CliError(`cannot serve ${file}: ${(e as Error).message}`);
  }
  print(`Mockyard serving ${file} at ${serving.running.url}/${watch ? ' (watching for changes)' : ''}`);
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
