/** The problems of one body under validation: each becomes a `details[]` item of a 400 validation_failed. */
import { type ErrorDetail, validationError } from './errors.js';
import { templateDetails } from './template-syntax.js';

export class Problems {
  readonly list: ErrorDetail[] = [];
  add(path: string, message: string): void {
    this.list.push({ path, message });
  }
  /** Each template in `v` (a string, or the strings of an object or list) that does not parse (docs/templates.md). */
  templates(v: unknown, at: string): void {
    this.list.push(...templateDetails(v, at));
  }
  throwIfAny(): void {
    if (this.list.length > 0) throw validationError(this.list);
  }
}
