import type { FastifyInstance } from 'fastify';
import { type Action, RULE_LIMITS, type Rule, type RuleRecord } from '../domain/model.js';
import { RuleBody, RulePatch } from '../domain/schemas.js';
import { ruleFields, validateRule } from '../domain/validate.js';
import { allowSet } from '../runtime/egress-helpers.js';
import { blockedTargetWarnings } from '../runtime/egress-warnings.js';
import { compileSequence } from '../runtime/sequence.js';
import { type ApiDeps, caller, type Params } from './context.js';

type Json = Record<string, unknown>;

/** The API form of a rule: the stored hit counter becomes `state: {step, served}`. */
export function ruleView(r: RuleRecord): Rule {
  const state = r.response
    ? compileSequence(
        r.response.steps.map((s) => s.count),
        r.response.mode,
      ).stateAt(r.hits)
    : { step: 0, served: 0 };
  return {
    id: r.id,
    endpointId: r.endpointId,
    ...ruleFields(r),
    state,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export function ruleRoutes(app: FastifyInstance, { store, config }: ApiDeps): void {
  const tags = ['rules'];
  const base = '/api/projects/:projectId/endpoints/:endpointId/rules';
  type EP = Params<'projectId' | 'endpointId'>;
  type RP = Params<'projectId' | 'endpointId' | 'ruleId'>;
  type SQ = { session?: string };
  const sessionQuery = { type: 'object', properties: { session: { type: 'string', maxLength: 200 } } };

  app.get<{ Params: EP; Querystring: SQ }>(
    base,
    { schema: { tags, summary: 'Rules of an endpoint by priority, then creation', querystring: sessionQuery } },
    async (req) =>
      (
        await store.rules.list(caller(req).id, req.params.projectId, req.params.endpointId, req.query.session ?? '')
      ).map(ruleView),
  );

  // a webhook target the egress will refuse is saved, with a warning beside the rule (docs/actions.md)
  const allowed = allowSet(config.allowTargets); // as the egress reads them (a bad entry stops it at start)
  const withWarnings = <T extends object>(view: T, actions: Action[]) => {
    const warnings = blockedTargetWarnings(actions, allowed);
    return warnings.length > 0 ? { ...view, warnings } : view;
  };

  app.post<{ Params: EP; Body: Json }>(
    base,
    { schema: { tags, summary: 'Create a rule (403 plan_limit_exceeded past the plan’s limit)', body: RuleBody } },
    async (req, reply) => {
      const me = caller(req);
      const ep = await store.endpoints.require(me.id, req.params.projectId, req.params.endpointId);
      // a WebSocket or GraphQL step may leave its status out (docs/websocket.md, docs/graphql.md); an HTTP step says it
      const input = validateRule(req.body, undefined, { statusOptional: ep.method === 'WS' || ep.graphql !== null });
      const rule = await store.rules.create(
        me.id,
        req.params.projectId,
        req.params.endpointId,
        input,
        RULE_LIMITS[me.plan],
      );
      reply.code(201);
      return withWarnings(ruleView(rule), input.actions);
    },
  );

  app.get<{ Params: RP; Querystring: SQ }>(
    `${base}/:ruleId`,
    { schema: { tags, summary: 'One rule', querystring: sessionQuery } },
    async (req) =>
      ruleView(
        await store.rules.require(
          caller(req).id,
          req.params.projectId,
          req.params.endpointId,
          req.params.ruleId,
          req.query.session ?? '',
        ),
      ),
  );

  const update = async (req: { params: RP; body: Json } & Parameters<typeof caller>[0]) => {
    const me = caller(req);
    const { projectId, endpointId, ruleId } = req.params;
    const current = await store.rules.require(me.id, projectId, endpointId, ruleId);
    const ep = await store.endpoints.require(me.id, projectId, endpointId);
    const next = validateRule(req.body, current, { statusOptional: ep.method === 'WS' || ep.graphql !== null });
    const responseChanged =
      req.body.response !== undefined && JSON.stringify(next.response) !== JSON.stringify(current.response);
    const saved = await store.rules.update(me.id, projectId, endpointId, ruleId, next, responseChanged);
    return withWarnings(ruleView(saved), next.actions);
  };
  app.put<{ Params: RP; Body: Json }>(`${base}/:ruleId`, { schema: { tags, body: RulePatch } }, update);
  app.patch<{ Params: RP; Body: Json }>(
    `${base}/:ruleId`,
    { schema: { tags, summary: 'Update a rule (partial; {"active": false} toggles)', body: RulePatch } },
    update,
  );

  app.delete<{ Params: RP }>(`${base}/:ruleId`, { schema: { tags } }, async (req, reply) => {
    await store.rules.delete(caller(req).id, req.params.projectId, req.params.endpointId, req.params.ruleId);
    reply.code(204).send();
  });

  app.post<{ Params: RP; Querystring: SQ }>(
    `${base}/:ruleId/reset`,
    {
      schema: {
        tags,
        summary: 'Restart the sequence at step 0 (every session, or ?session= for one)',
        querystring: sessionQuery,
      },
    },
    async (req) =>
      ruleView(
        await store.rules.reset(
          caller(req).id,
          req.params.projectId,
          req.params.endpointId,
          req.params.ruleId,
          req.query.session,
        ),
      ),
  );
}
