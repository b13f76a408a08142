import { describe, expect, it } from 'vitest';
import { sameText } from './same-text.js';

describe('sameText', () => {
  it('is true exactly when both strings hold the same characters', () => {
    const url = '/m/abc/api/users?x=1';
    expect(sameText(url.slice(3, 6), 'abc')).toBe(true);
    expect(sameText(url.slice(6, 16), '/api/users')).toBe(true);
    expect(sameText('/api/users', '/api/user')).toBe(false);
    expect(sameText('/api/users', '/api/userz')).toBe(false);
    expect(sameText('', '')).toBe(true);
    expect(sameText('é€😀', 'é€😀')).toBe(true);
    expect(sameText('é€😀', 'é€😁')).toBe(false);
  });

  it('does not compare strings longer than its bound', () => {
    const long = 'a'.repeat(300);
    expect(sameText(long, long)).toBe(false);
    expect(sameText(long, long, 300)).toBe(true);
  });
});
