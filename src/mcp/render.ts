/**
 * `render_template`: a template rendered against a sample request by the runtime's own compiler and
 * context (the same code a step body goes through), with faker loaded when the template calls it.
 */
import { MockContext, MockRequestView } from '../runtime/context.js';
import { loadFaker } from '../runtime/faker.js';
import { CapExceeded, compileTemplate, usesFaker } from '../runtime/template.js';
import { ToolError } from './tool-error.js';

interface SampleRequest {
  method?: string;
  path?: string;
  query?: string;
  headers?: Record<string, string>;
  body?: string;
  params?: Record<string, string>;
}

export async function renderTemplate(args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const template = String(args.template ?? '');
  const r = (args.request ?? {}) as SampleRequest;
  if (usesFaker(template)) await loadFaker();
  const headers: Record<string, string> = {};
  const raw: string[] = [];
  for (const [k, v] of Object.entries(r.headers ?? {})) {
    headers[k.toLowerCase()] = v;
    raw.push(k, v);
  }
  const view = new MockRequestView((r.method ?? 'GET').toUpperCase(), r.path ?? '/', r.query ?? '', headers, raw);
  view.body = r.body ?? '';
  if (r.params) view.params = { ...r.params };
  const ctx = new MockContext(view, typeof args.seed === 'string' ? args.seed : null);
  try {
    return { rendered: compileTemplate(template)(ctx) };
  } catch (e) {
    if (e instanceof CapExceeded) throw new ToolError('render_too_large', e.message);
    throw e;
  }
}
