/** The CLI's argument parsing (common.ts): what is an option, what a positional. */
import { describe, expect, it } from 'vitest';
import { parse, UsageError } from './common.js';

const options = { storage: { type: 'boolean' }, token: { type: 'string' } } as const;

describe('parse', () => {
  it('takes a positional that starts with a dash: a project id or name', () => {
    // base64url ids: one in 64 starts with "-"
    expect(parse(['-oR3vJ6kq2Yw8x1ZbT4mNa', '--storage'], options)).toEqual({
      values: { storage: true },
      positionals: ['-oR3vJ6kq2Yw8x1ZbT4mNa'],
    });
    expect(parse(['--storage', '-beta', 'second'], options).positionals).toEqual(['-beta', 'second']);
  });

  it('keeps positionals in order around options, and everything after -- as positionals', () => {
    expect(parse(['a', '--token', 't', '-b-c', 'd'], options)).toEqual({
      values: { token: 't' },
      positionals: ['a', '-b-c', 'd'],
    });
    expect(parse(['--', '--storage', '-x'], options)).toEqual({ values: {}, positionals: ['--storage', '-x'] });
  });

  it('takes an option value that starts with a dash', () => {
    expect(parse(['--token', '-xyz'], options).values).toEqual({ token: '-xyz' });
  });

  it('still refuses an unknown option and an unknown short one', () => {
    expect(() => parse(['--bogus'], options)).toThrow(UsageError);
    expect(() => parse(['-x'], options)).toThrow(UsageError);
    expect(parse(['-h'], options).values).toEqual({ help: true });
  });

  it('refuses a positional where none is allowed, dash or not', () => {
    expect(() => parse(['-abc'], options, false)).toThrow(UsageError);
    expect(() => parse(['abc'], options, false)).toThrow(UsageError);
  });
});
