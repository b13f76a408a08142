import { describe, expect, it } from 'vitest';
import { resolveExampleRefs } from './openapi-example-refs.js';

describe('example $refs to components/examples', () => {
  const doc = {
    openapi: '3.0.3',
    components: {
      examples: {
        user: { summary: 'a user', value: { id: 1, name: 'Ada' } },
        alias: { $ref: '#/components/examples/user' },
        list: { value: [{ $ref: '#/components/examples/user' }] },
      },
    },
    paths: {
      '/u': {
        get: {
          responses: {
            200: {
              description: 'ok',
              content: {
                'application/json': { example: { $ref: '#/components/examples/alias' } },
                'text/plain': { examples: { one: { $ref: '#/components/examples/user' } } },
              },
            },
          },
        },
      },
    },
  };

  it('serves the value where an example value is expected, and keeps Example Objects where they are expected', () => {
    const out = resolveExampleRefs(doc) as typeof doc & Record<string, never>;
    const content = (out.paths['/u'].get.responses[200] as { content: Record<string, Record<string, unknown>> })
      .content;
    expect(content['application/json'].example).toEqual({ id: 1, name: 'Ada' });
    expect(content['text/plain'].examples).toEqual({ one: { $ref: '#/components/examples/user' } });
    expect((out.components.examples.list as { value: unknown }).value).toEqual([{ id: 1, name: 'Ada' }]);
    // the input is not changed, and a document without such refs is returned as it is
    expect(doc.paths['/u'].get.responses[200].content['application/json'].example).toEqual({
      $ref: '#/components/examples/alias',
    });
    const plain = { openapi: '3.0.3', paths: {} };
    expect(resolveExampleRefs(plain)).toBe(plain);
  });
});
