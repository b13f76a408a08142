/**
 * `mockyard import <file|folder|zip> --project <name>`: mocks into a project (created when missing), with
 * the report. A folder goes as a zip of its files (WireMock `__files`, Mockoon file bodies, a split
 * OpenAPI description: docs/interop.md "Folders and zips").
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ImportReport } from '../interop/apply.js';
import { api, CliError, connection, findProject, type ProjectRef, parse, print, UsageError } from './common.js';
import { FORMATS, HELP } from './help.js';
import { zipFolder } from './zip-folder.js';

export async function importFile(args: string[]): Promise<void> {
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
  const format = values.format as string | undefined;
  if (format !== undefined && !(FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
  const name = (values.project as string | undefined)?.trim();
  if (!name) throw new UsageError('--project <name> is required');
  const mode = (values['on-conflict'] as string | undefined) ?? 'fail';
  if (!['fail', 'skip', 'replace'].includes(mode)) throw new UsageError('--on-conflict must be fail, skip or replace');
  const conn = connection(values as { url?: string; token?: string });
  const file = positionals[0];
  let body: string | Uint8Array;
  let contentType: string;
  try {
    if (fs.statSync(file).isDirectory()) {
      body = zipFolder(file);
      contentType = 'application/zip';
    } else if (path.extname(file).toLowerCase() === '.zip') {
      body = fs.readFileSync(file);
      contentType = 'application/zip';
    } else {
      const text = fs.readFileSync(file, 'utf8');
      const ext = path.extname(file).toLowerCase();
      const json = ext === '.json' || (ext !== '.yaml' && ext !== '.yml' && /^\s*[{[]/.test(text));
      body = text;
      contentType = json ? 'application/json' : 'application/yaml';
    }
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new CliError(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  }

  let project = await findProject(conn, values.project as string);
  let createdProject = false;
  if (!project) {
    project = await api<ProjectRef>(conn, 'POST', '/api/projects', { name: values.project });
    createdProject = true;
  }
  const answer = await api<ImportReport>(
    conn,
    'POST',
    `/api/projects/${encodeURIComponent(project.id)}/import${format ? `/${format}` : ''}?onConflict=${mode}`,
    body,
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
