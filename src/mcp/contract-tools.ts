/** The MCP tools of contract validation (docs/contract.md, docs/agents.md): over the same REST routes. */
import { Type } from '@sinclair/typebox';
import { call, projectId, str, type Tool, wrap } from './tool-kit.js';

export const contractTools: Tool[] = [
  {
    name: 'set_contract',
    description:
      "Attach or replace the project's OpenAPI 3.0/3.1 or Swagger 2.0 contract (an object, or YAML/JSON text); optionally set the validation modes.",
    read: false,
    input: Type.Object({
      projectId,
      document: Type.Union([Type.Object({}, { additionalProperties: true }), Type.String()], {
        description: 'the OpenAPI document, parsed or as text',
      }),
      validation: Type.Optional(
        Type.Object(
          {
            requests: Type.Optional(Type.Union(['off', 'warn', 'enforce'].map((m) => Type.Literal(m)))),
            responses: Type.Optional(Type.Union(['off', 'warn'].map((m) => Type.Literal(m)))),
            status: Type.Optional(Type.Union([Type.Literal(400), Type.Literal(422)])),
          },
          { description: 'the project’s validation modes (docs/contract.md)' },
        ),
      ),
    }),
    run: async (a, api) => {
      const text = typeof a.document === 'string' ? a.document : JSON.stringify(a.document);
      const yaml = typeof a.document === 'string' && !/^\s*\{/.test(a.document);
      const pid = str(a.projectId);
      const answer = wrap(
        await call(api, 'PUT', `/api/projects/${pid}/contract`, text, yaml ? 'application/yaml' : 'application/json'),
      );
      if (a.validation) {
        const project = (await call(api, 'PATCH', `/api/projects/${pid}`, { validation: a.validation })) as {
          validation: unknown;
        };
        return { ...answer, validation: project.validation };
      }
      return answer;
    },
  },
  {
    name: 'lint_contract',
    description:
      "Check every endpoint's answers against the project's contract; lists each problem and the operations no endpoint mocks.",
    read: true,
    input: Type.Object({ projectId }),
    run: async (a, api) => wrap(await call(api, 'GET', `/api/projects/${str(a.projectId)}/contract/lint`)),
  },
];
