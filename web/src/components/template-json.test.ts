import { describe, expect, it } from 'vitest';
import { checkTemplateJson, templateError } from './template-json';

describe('checkTemplateJson', () => {
  it.each([
    ['{"a":1}', { ok: true, plain: true }],
    ['{"name":"{{faker "person.fullName"}}"}', { ok: true, plain: false }],
    [
      '{"name":"{{faker \'person.firstName\'}}","n":{{faker "number.int" {"min":1,"max":9}}}}',
      { ok: true, plain: false },
    ],
    ['{"id":{{request.params.id}},"s":"a\\"{{x}}"}', { ok: true, plain: false }],
    ['{"x":{{{raw}}}}', { ok: true, plain: false }],
    ['[{{#each items}}{"a":1}{{#unless @last}},{{/unless}}{{/each}}]', { ok: true, plain: false, blocks: true }],
  ])('%s', (text, want) => {
    expect(checkTemplateJson(text)).toEqual(want);
  });

  it('still reports JSON that is broken outside the tags', () => {
    expect(checkTemplateJson('{"a":{{x}},}').ok).toBe(false);
    expect(checkTemplateJson('{"a": 1').ok).toBe(false);
  });
});

describe('templateError', () => {
  it('gives the line and column the server gives', () => {
    expect(templateError('{\n  {{#each x}}\n}')).toMatchObject({ line: 2, column: 3 });
    expect(templateError('{{request.path}}')).toBeNull();
  });
});
