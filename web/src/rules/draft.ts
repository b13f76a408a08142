import { fromRows, type KvRow, toRows } from '../components/KeyValueEditor';
import {
  ACTION_TIMEOUT,
  type Action,
  type ActionType,
  type Condition,
  type ConditionTarget,
  type Fault,
  KEYED_TARGETS,
  LIMITS,
  type OnError,
  type Operator,
  type Rule,
  type RuleInput,
  type SequenceMode,
  type Step,
  type StorageScope,
  VALUELESS_OPERATORS,
} from '../types';
import { parseStream, streamJson } from './stream-draft';

/** Form state of a rule: numbers as typed text, rows with stable keys. */

let nextUid = 1;
const uid = () => nextUid++;

export interface CondDraft {
  uid: number;
  target: ConditionTarget;
  key: string;
  operator: Operator;
  value: string;
}

export interface StepDraft {
  uid: number;
  statusCode: string;
  body: string;
  headers: KvRow[];
  delayMs: string;
  delayMaxMs: string;
  count: string;
  fault: '' | Fault;
  /** what the step streams instead of one body, as JSON: {events, repeat, keepOpen} | {chunks} | {llm} ('' for none) */
  stream: string;
}

export { parseStream, streamJson };

export interface ActionDraft {
  uid: number;
  type: ActionType;
  name: string;
  value: string;
  url: string;
  method: string;
  headers: KvRow[];
  body: string;
  applyResponse: boolean;
  timeoutMs: string;
  saveAs: string;
  /** where store_variable and delete_variable keep the value */
  scope: StorageScope;
  onError: OnError;
}

export interface RuleDraft {
  name: string;
  priority: string;
  active: boolean;
  conditions: CondDraft[];
  hasResponse: boolean;
  mode: SequenceMode;
  steps: StepDraft[];
  actions: ActionDraft[];
  /** WebSocket endpoints: what runs the rule (docs/websocket.md) */
  on: 'connect' | 'message' | 'close';
}

export const needsKey = (t: ConditionTarget) => KEYED_TARGETS.includes(t);
export const needsValue = (o: Operator) => !VALUELESS_OPERATORS.includes(o);

export const newCondition = (): CondDraft => ({
  uid: uid(),
  target: 'header',
  key: '',
  operator: 'equals',
  value: '',
});

export const newStep = (statusCode = '200'): StepDraft => ({
  uid: uid(),
  statusCode,
  body: '',
  headers: [],
  delayMs: '0',
  delayMaxMs: '0',
  count: '1',
  fault: '',
  stream: '',
});

export const newAction = (type: ActionType = 'set_variable'): ActionDraft => ({
  uid: uid(),
  type,
  name: '',
  value: '',
  url: 'https://',
  method: 'POST',
  headers: [],
  body: '',
  applyResponse: false,
  timeoutMs: '5000',
  saveAs: '',
  scope: 'endpoint',
  onError: 'continue',
});

export function newRuleDraft(priority: number, n: number): RuleDraft {
  return {
    name: `Rule ${n}`,
    priority: String(priority),
    active: true,
    conditions: [],
    hasResponse: true,
    mode: 'loop',
    steps: [newStep()],
    actions: [],
    on: 'message',
  };
}

export function toDraft(rule: Rule): RuleDraft {
  return {
    name: rule.name,
    priority: String(rule.priority),
    active: rule.active,
    conditions: rule.conditions.map((c) => ({
      uid: uid(),
      target: c.target,
      key: c.key ?? '',
      operator: c.operator,
      value: c.value ?? '',
    })),
    on: rule.on ?? 'message',
    hasResponse: rule.response !== null,
    mode: rule.response?.mode ?? 'loop',
    steps: rule.response?.steps.map((s) => ({
      uid: uid(),
      statusCode: String(s.statusCode),
      body: s.body ?? '',
      headers: toRows(s.headers),
      delayMs: String(s.delayMs ?? 0),
      delayMaxMs: String(s.delayMaxMs ?? 0),
      count: String(s.count ?? 1),
      fault: s.fault ?? '',
      stream: streamJson(s),
    })) ?? [newStep()],
    actions: rule.actions.map((a) => {
      const base = newAction(a.type);
      if (a.type === 'http_request') {
        return {
          ...base,
          url: a.url,
          method: a.method ?? 'GET',
          headers: toRows(a.headers),
          body: a.body ?? '',
          applyResponse: !!a.applyResponse,
          timeoutMs: String(a.timeoutMs ?? 5000),
          saveAs: a.saveAs ?? '',
          onError: a.onError ?? 'continue',
        };
      }
      if (a.type === 'broadcast') return { ...base, name: a.channel, value: a.body, onError: a.onError ?? 'continue' };
      return {
        ...base,
        name: a.name,
        value: a.type === 'delete_variable' ? '' : a.value,
        scope: a.type === 'set_variable' ? 'endpoint' : (a.scope ?? 'endpoint'),
        onError: a.onError ?? 'continue',
      };
    }),
  };
}

const int = (s: string) => Number.parseInt(s, 10);

export function fromDraft(d: RuleDraft): RuleInput {
  const conditions: Condition[] = d.conditions.map((c) => {
    const out: Condition = { target: c.target, operator: c.operator };
    if (needsKey(c.target)) out.key = c.key.trim();
    if (needsValue(c.operator)) out.value = c.value;
    return out;
  });
  const steps: Step[] = d.steps.map((s) => {
    const step: Step = {
      statusCode: int(s.statusCode),
      body: s.body,
      headers: fromRows(s.headers),
      delayMs: int(s.delayMs) || 0,
      delayMaxMs: int(s.delayMaxMs) || 0,
      count: int(s.count),
    };
    if (s.fault) step.fault = s.fault;
    Object.assign(step, parseStream(s.stream) ?? {});
    return step;
  });
  const actions: Action[] = d.actions.map((a) => {
    if (a.type === 'http_request') {
      const out: Action = {
        type: 'http_request',
        url: a.url.trim(),
        method: a.method,
        headers: fromRows(a.headers),
        body: a.body,
        applyResponse: a.applyResponse,
        timeoutMs: int(a.timeoutMs),
        onError: a.onError,
      };
      if (a.saveAs.trim()) out.saveAs = a.saveAs.trim();
      return out;
    }
    const name = a.name.trim();
    if (a.type === 'broadcast') return { type: a.type, channel: name, body: a.value, onError: a.onError };
    if (a.type === 'set_variable') return { type: a.type, name, value: a.value, onError: a.onError };
    const scope = a.scope === 'project' ? { scope: a.scope } : {};
    if (a.type === 'delete_variable') return { type: a.type, name, ...scope, onError: a.onError };
    return { type: a.type, name, value: a.value, ...scope, onError: a.onError };
  });
  return {
    name: d.name.trim(),
    priority: int(d.priority),
    active: d.active,
    conditions,
    response: d.hasResponse ? { mode: d.mode, steps } : null,
    actions,
    ...(d.on !== 'message' ? { on: d.on } : {}),
  };
}

const isInt = (s: string) => /^-?\d+$/.test(s.trim());

/** Client-side checks, keyed by the same JSON pointers the server uses in `details[].path`. */
export function validateDraft(d: RuleDraft): Map<string, string[]> {
  const m = new Map<string, string[]>();
  const add = (k: string, msg: string) => m.set(k, [...(m.get(k) ?? []), msg]);
  if (!d.name.trim()) add('/name', 'Give the rule a name.');
  else if (d.name.trim().length > LIMITS.nameLength) add('/name', `At most ${LIMITS.nameLength} characters.`);
  if (!isInt(d.priority)) add('/priority', 'A whole number; lower runs first.');
  d.conditions.forEach((c, i) => {
    const p = `/conditions/${i}`;
    if (needsKey(c.target) && !c.key.trim()) {
      add(
        `${p}/key`,
        c.target === 'header'
          ? 'Header name needed.'
          : c.target === 'query'
            ? 'Parameter name needed.'
            : c.target === 'body_json'
              ? 'JSON path needed, e.g. user.id.'
              : 'Variable name needed.',
      );
    }
    if (c.target === 'random' && c.operator !== 'less_than')
      add(`${p}/operator`, 'Random works with “less than” a percentage.');
    if (needsValue(c.operator)) {
      if (c.operator === 'less_than' && !/^-?\d+(\.\d+)?$/.test(c.value.trim())) add(`${p}/value`, 'A number.');
      else if (c.target === 'random') {
        const n = Number(c.value);
        if (!(n >= 0 && n <= 100)) add(`${p}/value`, 'A percentage from 0 to 100.');
      }
      if (c.operator === 'matches_regex') {
        try {
          new RegExp(c.value);
        } catch {
          add(`${p}/value`, 'Not a valid regular expression.');
        }
      }
    }
  });
  if (d.hasResponse) {
    if (d.steps.length === 0) add('/response/steps', 'Add at least one step, or choose “No response”.');
    d.steps.forEach((s, i) => {
      const p = `/response/steps/${i}`;
      if (!isInt(s.statusCode) || int(s.statusCode) < 100 || int(s.statusCode) > 599)
        add(`${p}/statusCode`, '100–599.');
      if (!isInt(s.count) || int(s.count) < 1) add(`${p}/count`, 'At least 1.');
      if (parseStream(s.stream) === null)
        add(`${p}/stream`, 'A JSON object: {"events": […]}, {"chunks": {…}} or {"llm": {…}} (docs/streams.md).');
      if (!isInt(s.delayMs) || int(s.delayMs) < 0) add(`${p}/delayMs`, '0 or more ms.');
      if (!isInt(s.delayMaxMs) || int(s.delayMaxMs) < 0) add(`${p}/delayMaxMs`, '0 or more ms.');
      else if (int(s.delayMaxMs) > 0 && int(s.delayMaxMs) < int(s.delayMs))
        add(`${p}/delayMaxMs`, 'Not below the minimum delay.');
    });
  }
  d.actions.forEach((a, i) => {
    const p = `/actions/${i}`;
    if (a.type === 'http_request') {
      if (!/^(https?:\/\/\S+|\{\{)/i.test(a.url.trim())) add(`${p}/url`, 'An http:// or https:// URL.');
      if (!isInt(a.timeoutMs) || int(a.timeoutMs) < 1 || int(a.timeoutMs) > ACTION_TIMEOUT.max)
        add(`${p}/timeoutMs`, `1 to ${ACTION_TIMEOUT.max} ms.`);
      if (a.saveAs.trim() && !/^[A-Za-z_][\w-]*$/.test(a.saveAs.trim()))
        add(`${p}/saveAs`, 'Letters, digits, _ and -.');
    } else if (!a.name.trim()) add(`${p}/name`, 'Variable name needed.');
  });
  return m;
}

/** Every JSON pointer a message can be shown at, for anchoring server `details[]`. */
export function draftAnchors(d: RuleDraft): string[] {
  const a = [
    '/name',
    '/priority',
    '/active',
    '/conditions',
    '/response',
    '/response/mode',
    '/response/steps',
    '/actions',
  ];
  d.conditions.forEach((_, i) => {
    a.push(`/conditions/${i}`);
    for (const f of ['target', 'key', 'operator', 'value']) a.push(`/conditions/${i}/${f}`);
  });
  d.steps.forEach((_, i) => {
    a.push(`/response/steps/${i}`);
    for (const f of ['statusCode', 'body', 'headers', 'delayMs', 'delayMaxMs', 'count', 'fault', 'stream'])
      a.push(`/response/steps/${i}/${f}`);
  });
  d.actions.forEach((_, i) => {
    a.push(`/actions/${i}`);
    for (const f of [
      'type',
      'name',
      'value',
      'url',
      'method',
      'headers',
      'body',
      'applyResponse',
      'timeoutMs',
      'saveAs',
      'onError',
    ])
      a.push(`/actions/${i}/${f}`);
  });
  return a;
}

export const TARGET_LABELS: Record<ConditionTarget, string> = {
  method: 'Method',
  path: 'Path',
  header: 'Header',
  query: 'Query parameter',
  url: 'Path and query',
  query_string: 'Query string (whole)',
  body: 'Body (raw)',
  body_json: 'Body (JSON path)',
  random: 'Random',
  endpoint: 'Endpoint storage',
  project: 'Project storage',
  vars: 'Variable (this request)',
  graphql_operation: 'GraphQL operation name',
  graphql_type: 'GraphQL operation type',
  graphql_variable: 'GraphQL variable (dot path)',
  graphql_field: 'GraphQL top-level field',
};

export const OPERATOR_LABELS: Record<Operator, string> = {
  equals: 'equals',
  not_equals: 'does not equal',
  contains: 'contains',
  not_contains: 'does not contain',
  matches_regex: 'matches regex',
  exists: 'exists',
  not_exists: 'does not exist',
  less_than: 'less than',
};

export const ACTION_LABELS: Record<ActionType, string> = {
  set_variable: 'Set variable',
  store_variable: 'Store variable',
  delete_variable: 'Delete variable',
  http_request: 'HTTP request',
  broadcast: 'Broadcast to WebSockets',
};

export const FAULT_LABELS: Record<Fault, string> = {
  connection_reset: 'Reset the connection',
  empty_response: 'Close without answering',
  malformed_body: 'Send a malformed body',
};

export function describeCondition(c: Condition): string {
  const t = TARGET_LABELS[c.target].toLowerCase();
  const key = c.key ? ` ${c.key}` : '';
  const val = c.value !== undefined && needsValue(c.operator) ? ` “${c.value}”` : '';
  if (c.target === 'random') return `random < ${c.value ?? '?'} %`;
  return `${t}${key} ${OPERATOR_LABELS[c.operator]}${val}`;
}
