import { describe, expect, it } from 'vitest';
import { loadFaker } from '../runtime/faker.js';
import { compileTemplate } from '../runtime/template.js';
import { exampleContext } from '../runtime/templates/example-context.js';
import { translateTemplate, verbatim } from './templates.js';
import type { ImportWarning } from './types.js';

const translate = (dialect: 'mockoon' | 'wiremock', text: string) => {
  const warnings: ImportWarning[] = [];
  const out = translateTemplate(text, { dialect, pointer: '/x', warnings });
  return { out, warnings: warnings.map((w) => w.message) };
};

describe('translateTemplate', () => {
  it('keeps Mockoon blocks and helpers Mockyard has, and renders them as Mockoon would', async () => {
    await loadFaker();
    const src =
      '[{{#repeat 2}}{"n":{{add @index 1}},"up":"{{uppercase \'a\'}}"}{{/repeat}}]{{#switch \'b\'}}{{#case \'b\'}}B{{/case}}{{/switch}}';
    const { out, warnings } = translate('mockoon', src);
    expect(warnings).toEqual([]);
    expect(out).toBe(src);
    expect(compileTemplate(out)(exampleContext())).toBe('[{"n":1,"up":"A"},{"n":2,"up":"A"}]B');
  });

  it('warns for the helpers without an equivalent, name by name', () => {
    expect(translate('mockoon', "{{data 'users'}} {{getEnvVar 'HOME'}}").warnings).toHaveLength(2);
    expect(translate('wiremock', "{{xPath request.body '/a'}} {{systemValue key='HOME'}}").warnings).toHaveLength(2);
    expect(translate('wiremock', '{{#each (jsonPath request.body "$.items")}}{{this.id}}{{/each}}').warnings).toEqual(
      [],
    );
  });

  it("turns WireMock's date into dateFormat (Mockyard's date is Mockoon's random one)", () => {
    const { out } = translate(
      'wiremock',
      "{{date (parseDate '2024-01-31T00:00:00Z') offset='1 days' format='yyyy-MM-dd'}}|{{date request.headers.x format='yyyy'}}",
    );
    expect(out).toBe(
      '{{dateFormat (dateAdd (parseDate \'2024-01-31T00:00:00Z\') "1 days") "yyyy-MM-dd"}}|{{dateFormat request.headers.x "yyyy"}}',
    );
    expect(compileTemplate(out)(exampleContext())).toBe('2024-02-01|2024');
  });

  it("reads WireMock's path segments and request line (port from Host), keeps a segment without a parameter", () => {
    const { out, warnings } = translate(
      'wiremock',
      '{{request.path.[0]}}/{{request.path.[1]}} {{request.requestLine.port}} {{request.requestLine.method}} {{request.requestLine.host}}',
    );
    expect(warnings).toEqual([]);
    const base = exampleContext();
    const ctx = {
      ...base,
      req: { ...base.req, path: '/users/7', header: (n: string) => (n === 'host' ? 'mocks.test:8443' : undefined) },
    };
    expect(compileTemplate(out)(ctx)).toBe('users/7 8443 POST mocks.test');
  });

  it('keeps a body that is not templated as written (WireMock without response-template, Mockoon disableTemplating)', () => {
    const text = '{"a":"{{request.method}}","b":"{{#each x}}y{{/each}}"}';
    expect(compileTemplate(verbatim(text))(exampleContext())).toBe(text);
  });
});
