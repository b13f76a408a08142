import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOC_END, DOC_START, helperDocs, supported } from './helper-doc.js';
import { MOCKOON_NAMES, WIREMOCK_NAMES } from './peer-names.js';

const DOC = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/templates.md');

describe('docs/templates.md', () => {
  it('holds the helper and mapping tables as the code has them', () => {
    const text = fs.readFileSync(DOC, 'utf8');
    const start = text.indexOf(DOC_START);
    const end = text.indexOf(DOC_END);
    expect(start, 'the generated part is marked').toBeGreaterThanOrEqual(0);
    const now = text.slice(start, end + DOC_END.length);
    const want = helperDocs();
    if (process.env.UPDATE_DOCS === '1' && now !== want) fs.writeFileSync(DOC, text.replace(now, want));
    else expect(now, 'run UPDATE_DOCS=1 npx vitest run src/runtime/templates/docs.test.ts').toBe(want);
  });

  it.each([
    ['Mockoon', MOCKOON_NAMES],
    ['WireMock', WIREMOCK_NAMES],
  ])('at least 90 %% of %s names have a working equivalent', (_peer, names) => {
    expect(names.filter(supported).length / names.length).toBeGreaterThanOrEqual(0.9);
    expect(new Set(names.map((n) => n.name)).size).toBe(names.length);
  });
});
