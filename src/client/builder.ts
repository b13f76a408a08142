/**
 * Fluent endpoint and rule creation for tests:
 *   await my.stub(projectId).get('/users/:id').json({ id: 1 })
 *     .rule('vip').whenHeader('x-tier', 'vip').respond(403, { error: 'no' }).end()
 *     .create();
 * Each `create()` is the same calls a test would make by hand (one endpoint, then its rules).
 */
import type { Condition, Endpoint, HttpMethod, Rule } from '../domain/model.js';
import type { Endpoints, RuleFields, Rules } from './resources.js';

type StepFields = NonNullable<RuleFields['response']>['steps'][number];
const asBody = (body: unknown): string => (typeof body === 'string' ? body : JSON.stringify(body));

export class RuleBuilder {
  private readonly fields: RuleFields & {
    name: string;
    conditions: Condition[];
    actions: NonNullable<RuleFields['actions']>;
  };
  private readonly steps: StepFields[] = [];
  private mode: 'loop' | 'hold_last' = 'loop';

  constructor(
    private readonly parent: EndpointBuilder,
    name: string,
  ) {
    this.fields = { name, conditions: [], actions: [] };
  }

  /** any condition (docs/api.md "Rules", docs/stateful-mocks.md) */
  when(target: Condition['target'], operator: Condition['operator'], value?: string, key?: string): this {
    const c: Condition = { target, operator };
    if (key !== undefined) c.key = key;
    if (value !== undefined) c.value = value;
    this.fields.conditions.push(c);
    return this;
  }
  whenHeader(name: string, value: string, operator: Condition['operator'] = 'equals'): this {
    return this.when('header', operator, value, name);
  }
  whenQuery(name: string, value: string, operator: Condition['operator'] = 'equals'): this {
    return this.when('query', operator, value, name);
  }
  whenBody(path: string, value: string, operator: Condition['operator'] = 'equals'): this {
    return this.when('body_json', operator, value, path);
  }
  priority(n: number): this {
    this.fields.priority = n;
    return this;
  }
  /** one step of the answer; call again for a sequence */
  respond(statusCode: number, body: unknown = '', extra: Omit<StepFields, 'statusCode' | 'body'> = {}): this {
    this.steps.push({ statusCode, body: asBody(body), ...extra });
    return this;
  }
  /** a sequence holds its last step instead of starting over */
  holdLast(): this {
    this.mode = 'hold_last';
    return this;
  }
  action(a: NonNullable<RuleFields['actions']>[number]): this {
    this.fields.actions.push(a);
    return this;
  }
  /** back to the endpoint */
  end(): EndpointBuilder {
    return this.parent;
  }
  fieldsOf(): RuleFields & { name: string } {
    return { ...this.fields, response: this.steps.length > 0 ? { mode: this.mode, steps: this.steps } : null };
  }
}

export class EndpointBuilder {
  private statusCode = 200;
  private responseBody = '';
  private contentType: string | undefined;
  private readonly rules: RuleBuilder[] = [];

  constructor(
    private readonly api: { endpoints: Endpoints; rules: Rules },
    private readonly projectId: string,
    private readonly method: HttpMethod,
    private readonly path: string,
  ) {}

  status(code: number): this {
    this.statusCode = code;
    return this;
  }
  body(text: string, contentType?: string): this {
    this.responseBody = text;
    if (contentType !== undefined) this.contentType = contentType;
    return this;
  }
  json(value: unknown, statusCode?: number): this {
    this.responseBody = JSON.stringify(value);
    this.contentType = 'application/json';
    if (statusCode !== undefined) this.statusCode = statusCode;
    return this;
  }
  rule(name: string): RuleBuilder {
    const r = new RuleBuilder(this, name);
    this.rules.push(r);
    return r;
  }
  async create(): Promise<{ endpoint: Endpoint; rules: Rule[] }> {
    const endpoint = await this.api.endpoints.create(this.projectId, {
      method: this.method,
      path: this.path,
      statusCode: this.statusCode,
      responseBody: this.responseBody,
      ...(this.contentType !== undefined ? { contentType: this.contentType } : {}),
    });
    const rules: Rule[] = [];
    for (const r of this.rules) rules.push(await this.api.rules.create(this.projectId, endpoint.id, r.fieldsOf()));
    return { endpoint, rules };
  }
}

export class StubBuilder {
  constructor(
    private readonly api: { endpoints: Endpoints; rules: Rules },
    private readonly projectId: string,
  ) {}
  on(method: HttpMethod, path: string): EndpointBuilder {
    return new EndpointBuilder(this.api, this.projectId, method, path);
  }
  get(path: string) {
    return this.on('GET', path);
  }
  post(path: string) {
    return this.on('POST', path);
  }
  put(path: string) {
    return this.on('PUT', path);
  }
  patch(path: string) {
    return this.on('PATCH', path);
  }
  delete(path: string) {
    return this.on('DELETE', path);
  }
}
