import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError, ERRORS, errorBody } from './errors.js';

describe('error table', () => {
  const doc = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', 'api.md'), 'utf8');

  it.each(Object.entries(ERRORS))('%s is documented in docs/api.md with its status', (code, { status }) => {
    const row = doc.split('\n').find((l) => l.includes(`\`${code}\``) && l.trim().startsWith('|'));
    expect(row, `docs/api.md has a table row for ${code}`).toBeDefined();
    expect(row).toMatch(new RegExp(`^\\|\\s*${status}\\s*\\|`));
  });

  it('statuses are HTTP error statuses', () => {
    for (const { status } of Object.values(ERRORS)) expect(status >= 400 && status <= 599).toBe(true);
  });

  it('the body has the contract shape and omits empty details', () => {
    expect(errorBody(new AppError('not_found'))).toEqual({
      error: { code: 'not_found', message: ERRORS.not_found.message },
    });
    const v = errorBody(new AppError('validation_failed', 'bad', [{ path: '/a', message: 'm' }]));
    expect(v.error.details).toEqual([{ path: '/a', message: 'm' }]);
  });
});
