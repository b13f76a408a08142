/**
 * What each rule of an endpoint did with a logged request — matched, failed at condition N with the
 * value the request had, failed for another reason, skipped as inactive, or not reached — and the
 * same in words. The dashboard's inspector and the MCP server's `explain_request` share it.
 */
import type { Condition, RequestLogEntry, Rule } from './model.js';

/** What a condition read from the logged request, when the log holds it (state and variables it does not). */
export function receivedValue(c: Condition, e: RequestLogEntry): { known: boolean; value?: string } {
  switch (c.target) {
    case 'method':
      return { known: true, value: e.method };
    case 'path':
      return { known: true, value: e.path };
    case 'header': {
      const v = e.headers[(c.key ?? '').toLowerCase()];
      return { known: true, value: v };
    }
    case 'query': {
      const v = new URLSearchParams(e.query ?? '').get(c.key ?? '');
      return { known: true, value: v ?? undefined };
    }
    case 'query_string':
      return { known: true, value: e.query ? e.query : undefined };
    case 'url':
      return { known: true, value: e.query ? `${e.path}?${e.query}` : e.path };
    case 'body':
      return { known: true, value: e.body };
    case 'body_json': {
      let v: unknown;
      try {
        v = JSON.parse(e.body);
      } catch {
        return { known: true, value: undefined };
      }
      for (const part of (c.key ?? '').split('.')) {
        if (v === null || typeof v !== 'object') return { known: true, value: undefined };
        v = (v as Record<string, unknown>)[part];
      }
      if (v === undefined) return { known: true, value: undefined };
      return { known: true, value: typeof v === 'string' ? v : JSON.stringify(v) };
    }
    default:
      return { known: false };
  }
}

export type RuleStatus =
  | { rule: Rule; status: 'matched' }
  | { rule: Rule; status: 'failed'; index: number; condition?: Condition; received: { known: boolean; value?: string } }
  | { rule: Rule; status: 'failed'; index?: undefined; reason?: string }
  | { rule: Rule; status: 'inactive' }
  | { rule: Rule; status: 'not_reached' };

/** Every rule of the endpoint in evaluation order, with what it did for this request. */
export function ruleStatuses(e: RequestLogEntry, rules: Rule[]): RuleStatus[] {
  const traces = new Map((e.rules ?? []).map((t) => [t.ruleId, t]));
  const ordered = rules
    .filter((r) => r.endpointId === e.endpointId)
    .sort((a, b) => a.priority - b.priority || (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  return ordered.map((rule): RuleStatus => {
    const t = traces.get(rule.id);
    if (t?.matched) return { rule, status: 'matched' };
    if (t && t.failedCondition !== undefined) {
      const condition = rule.conditions[t.failedCondition];
      return {
        rule,
        status: 'failed',
        index: t.failedCondition,
        condition,
        received: condition ? receivedValue(condition, e) : { known: false },
      };
    }
    if (t) return { rule, status: 'failed', reason: t.reason };
    if (!rule.active) return { rule, status: 'inactive' };
    // active, not in the trace: an earlier rule answered first (or the rule is newer than the request)
    return { rule, status: 'not_reached' };
  });
}

const TARGET_WORDS: Record<Condition['target'], string> = {
  method: 'the method',
  path: 'the path',
  header: 'header',
  query: 'query parameter',
  url: 'the path and query',
  query_string: 'the query string',
  body: 'the body',
  body_json: 'the JSON body at',
  random: 'a random draw',
  endpoint: 'the endpoint’s stored variable',
  project: 'the project’s stored variable',
  vars: 'the variable',
  graphql_operation: 'the GraphQL operation name',
  graphql_type: 'the GraphQL operation type',
  graphql_variable: 'the GraphQL variable',
  graphql_field: 'the GraphQL top-level field',
};

const OPERATOR_WORDS: Record<Condition['operator'], string> = {
  equals: 'to equal',
  not_equals: 'not to equal',
  contains: 'to contain',
  not_contains: 'not to contain',
  matches_regex: 'to match',
  exists: 'to exist',
  not_exists: 'not to exist',
  less_than: 'to be less than',
};

/** A condition in words: `header x-tier to equal "vip"`. */
export function conditionInWords(c: Condition): string {
  if (c.target === 'random') return `a random draw below ${c.value ?? '?'} %`;
  const what = c.key ? `${TARGET_WORDS[c.target]} ${c.key}` : TARGET_WORDS[c.target];
  const value = c.operator === 'exists' || c.operator === 'not_exists' ? '' : ` ${JSON.stringify(c.value ?? '')}`;
  return `${what} ${OPERATOR_WORDS[c.operator]}${value}`;
}

/** One sentence for what a rule did with the request. */
export function statusInWords(s: RuleStatus): string {
  const name = `Rule "${s.rule.name}"`;
  switch (s.status) {
    case 'matched':
      return `${name} matched and answered.`;
    case 'inactive':
      return `${name} is inactive, so it was skipped.`;
    case 'not_reached':
      return `${name} was not reached: an earlier rule answered first.`;
    case 'failed': {
      if (s.index === undefined) return `${name} did not match${s.reason ? `: ${s.reason}` : ''}.`;
      const cond = s.condition ? conditionInWords(s.condition) : `condition ${s.index + 1}`;
      const got = !s.received.known
        ? 'a stored value or variable the log does not hold'
        : s.received.value === undefined
          ? 'nothing (absent)'
          : JSON.stringify(s.received.value);
      return `${name} did not match: condition ${s.index + 1} expected ${cond}, and the request had ${got}.`;
    }
  }
}
