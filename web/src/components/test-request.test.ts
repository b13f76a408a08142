/** Sample values in copied mock URLs (TestRequest.samplePath). */
import { describe, expect, it } from 'vitest';
import { samplePath } from './TestRequest';

describe('samplePath', () => {
  it('puts sample values in place of parameters and the wildcard', () => {
    expect(samplePath('/users/:id')).toBe('/users/1');
    expect(samplePath('/orgs/:orgId/repos/:slug')).toBe('/orgs/1/repos/slug');
    expect(samplePath('/files/*')).toBe('/files/anything');
    expect(samplePath('/plain/path')).toBe('/plain/path');
  });
});
