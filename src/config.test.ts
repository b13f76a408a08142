/** Environment settings read by loadConfig: defaults, and a clear error for a value out of range. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('reads how often the request log writes, 250 ms by default', () => {
    expect(loadConfig({}).requestLogFlushMs).toBe(250);
    expect(loadConfig({ MOCKYARD_REQUEST_LOG_FLUSH_MS: '60000' }).requestLogFlushMs).toBe(60_000);
  });

  it('refuses a write interval out of range or not a whole number, naming the setting', () => {
    for (const raw of ['10', '600001', '1.5', 'soon'])
      expect(() => loadConfig({ MOCKYARD_REQUEST_LOG_FLUSH_MS: raw })).toThrow(
        new ConfigError(`MOCKYARD_REQUEST_LOG_FLUSH_MS must be an integer from 50 to 600000, got "${raw}"`),
      );
  });
});
