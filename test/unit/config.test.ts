// S2 settings: CORS_ORIGINS takes exact origins only; GRAPHIQL and INTROSPECTION are 0/1 switches.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const base = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x',
  ADMIN_TOKEN: 'adm_config_test_0123456789',
};
const load = (env: Record<string, string>) =>
  loadConfig({ ...base, ...env }, '/nonexistent-dir-for-config-test');

describe('S2 settings', () => {
  it('S2: CORS_ORIGINS defaults to none and takes a comma-separated list of exact origins', () => {
    expect(load({}).corsOrigins).toEqual([]);
    expect(load({ CORS_ORIGINS: ' https://Ops.Example.com , http://localhost:5173/ ' }).corsOrigins).toEqual([
      'https://ops.example.com',
      'http://localhost:5173',
    ]);
  });

  it('S2: CORS_ORIGINS refuses a wildcard, a path or a non-http origin', () => {
    for (const value of [
      '*',
      'https://*.example.com',
      'https://ops.example.com/app',
      'file://x',
      'ops.example.com',
    ]) {
      expect(() => load({ CORS_ORIGINS: value }), value).toThrow(ConfigError);
    }
  });

  it('S2: GRAPHIQL and INTROSPECTION are on by default, 0 turns them off, anything else is refused', () => {
    expect(load({})).toMatchObject({ graphiql: true, introspection: true });
    expect(load({ GRAPHIQL: '0', INTROSPECTION: '0' })).toMatchObject({
      graphiql: false,
      introspection: false,
    });
    expect(() => load({ GRAPHIQL: 'off' })).toThrow(ConfigError);
  });
});
