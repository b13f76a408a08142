/** `mockyard export <project>`: the project as one JSON export document on stdout. */
import { api, CliError, connection, findProject, parse, print, UsageError } from './common.js';
import { HELP } from './help.js';

export async function exportProject(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, {
    storage: { type: 'boolean' },
    url: { type: 'string' },
    token: { type: 'string' },
  });
  if (values.help) return print(HELP.export);
  if (positionals.length !== 1) throw new UsageError('export takes one <project-name-or-id>');
  const conn = connection(values as { url?: string; token?: string });
  const project = await findProject(conn, positionals[0]);
  if (!project) throw new CliError(`no project named "${positionals[0]}" (or with that id)`);
  const q = values.storage ? '?storage=true' : '';
  const doc = await api(conn, 'GET', `/api/projects/${encodeURIComponent(project.id)}/export${q}`);
  print(JSON.stringify(doc, null, 2));
}
