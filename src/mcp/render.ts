/** `render_template`: a template rendered against a sample request (runtime/preview.ts). */
import { renderPreview, type SampleRequest } from '../runtime/preview.js';
import { CapExceeded } from '../runtime/template.js';
import { ToolError } from './tool-error.js';

export async function renderTemplate(args: Record<string, unknown>): Promise<Record<string, unknown>> {
  try {
    const r = await renderPreview({
      template: String(args.template ?? ''),
      request: (args.request ?? {}) as SampleRequest,
      seed: typeof args.seed === 'string' ? args.seed : null,
    });
    if (!r.ok)
      throw new ToolError(
        'template_invalid',
        `line ${r.problem.line}, column ${r.problem.column}: ${r.problem.message}`,
      );
    return { rendered: r.output };
  } catch (e) {
    if (e instanceof CapExceeded) throw new ToolError('render_too_large', e.message);
    throw e;
  }
}
