/**
 * The generated part of docs/templates.md: the helper table and the Mockoon and WireMock mapping
 * tables, written from the same tables the code uses (templates.test.ts keeps the page equal to it;
 * `UPDATE_DOCS=1 npx vitest run src/runtime/templates/docs.test.ts` rewrites it).
 */
import { HELPER_TABLE, HELPERS } from './helpers.js';
import { MOCKOON_NAMES, type PeerName, WIREMOCK_NAMES } from './peer-names.js';

export const DOC_START = '<!-- helpers: generated from src/runtime/templates (helper-doc.ts); do not edit by hand -->';
export const DOC_END = '<!-- helpers: end -->';

const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', '\\n');
const code = (s: string) => `\`${cell(s).replaceAll('`', "'")}\``;

const FAMILIES: Record<string, string> = {
  blocks: 'Blocks',
  logic: 'Comparison and logic',
  math: 'Arithmetic',
  strings: 'Text',
  encoding: 'Encoding',
  arrays: 'Lists and objects',
  dates: 'Dates',
  random: 'Random values',
  variables: 'Template variables and tokens',
  request: 'The request, as Mockoon reads it',
};

/** Whether a peer's name has a working equivalent here. */
export const supported = (p: PeerName): boolean =>
  p.mockyard !== null && (HELPERS.has(p.mockyard) || p.mockyard.startsWith('request.'));

function peerTable(title: string, names: readonly PeerName[]): string[] {
  const ok = names.filter(supported).length;
  const out = [
    `### ${title}`,
    '',
    `${ok} of ${names.length} names (${Math.round((ok / names.length) * 100)} %) have a working equivalent.`,
    '',
    `| ${title} | Mockyard | note |`,
    '|---|---|---|',
  ];
  for (const p of names)
    out.push(
      `| ${code(p.name)} | ${p.mockyard === null ? 'not supported: a warning on import' : code(p.mockyard)} | ${cell(p.note ?? '')} |`,
    );
  return out;
}

export function helperDocs(): string {
  const out: string[] = [DOC_START, ''];
  for (const [family, title] of Object.entries(FAMILIES)) {
    const rows = HELPER_TABLE.filter((h) => h.family === family);
    if (rows.length === 0) continue;
    out.push(`### ${title}`, '', '| helper | what it gives | example | renders |', '|---|---|---|---|');
    for (const h of rows) {
      const names = [h.signature, ...(h.aliases ?? []).map((a) => `${a} (alias)`)];
      out.push(
        `| ${names.map(code).join('<br>')} | ${cell(h.description)} | ${code(h.example)} | ${h.output === undefined ? '(random)' : code(h.output)} |`,
      );
    }
    out.push('');
  }
  out.push('## Coming from Mockoon or WireMock', '');
  out.push(...peerTable('Mockoon', MOCKOON_NAMES), '', ...peerTable('WireMock', WIREMOCK_NAMES), '', DOC_END);
  return out.join('\n');
}
