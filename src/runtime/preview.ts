/**
 * A template rendered against a sample request (the dashboard's live preview, `POST
 * …/templates/render`, MCP's `render_template`): the runtime's own compiler and context, the same code
 * a step body goes through, with faker loaded when the template calls it.
 */
import type { TemplateProblem } from '../domain/template-syntax.js';
import { MockContext, MockRequestView } from './context.js';
import { loadFaker } from './faker.js';
import { compileTemplate, templateProblem, usesFaker } from './template.js';

export interface SampleRequest {
  method?: string;
  path?: string;
  /** `a=1&b=2`, or `{a: "1"}` */
  query?: string | Record<string, unknown>;
  headers?: Record<string, unknown>;
  /** text, or a JSON value sent as JSON */
  body?: unknown;
  params?: Record<string, string>;
}

export interface PreviewInput {
  template: string;
  request?: SampleRequest;
  /** X-Mockyard-Seed: the same seed renders the same random values */
  seed?: string | null;
  config?: ReadonlyMap<string, string>;
}

export type PreviewResult = { ok: true; output: string } | { ok: false; problem: TemplateProblem };

function queryText(q: SampleRequest['query']): string {
  if (q === undefined || q === null) return '';
  if (typeof q === 'string') return q.replace(/^\?/, '');
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) out.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  return out.toString();
}

/** Renders, or says where the template does not parse. Throws CapExceeded past the output cap. */
export async function renderPreview(input: PreviewInput): Promise<PreviewResult> {
  const problem = templateProblem(input.template);
  if (problem) return { ok: false, problem };
  if (usesFaker(input.template)) await loadFaker();
  const r = input.request ?? {};
  const headers: Record<string, string> = {};
  const raw: string[] = [];
  for (const [k, v] of Object.entries(r.headers ?? {})) {
    const value = String(v);
    headers[k.toLowerCase()] = value;
    raw.push(k, value);
  }
  const view = new MockRequestView((r.method ?? 'GET').toUpperCase(), r.path ?? '/', queryText(r.query), headers, raw);
  view.body =
    r.body === undefined || r.body === null ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  if (r.params) view.params = { ...r.params };
  const ctx = new MockContext(view, input.seed ?? null);
  ctx.config = input.config;
  return { ok: true, output: compileTemplate(input.template)(ctx) };
}
