import { describe, expect, test } from 'bun:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const production = {
  APP_ENV: 'production',
  DATABASE_URL: 'postgres://app@db.internal/marketplace',
  SMTP_URL: 'smtps://mailer:secret@smtp.example.com',
  OAUTH_JWKS_URL: 'https://id.example.com/.well-known/jwks.json',
  OAUTH_ISSUER: 'https://id.example.com',
  OAUTH_AUDIENCE: 'marketplace',
  OAUTH_ALLOWED_CLIENTS: 'web-app,mobile-app',
  API_KEY_SECRETS: 'k2026:0123456789abcdef0123456789abcdef',
  WEBHOOK_ENCRYPTION_KEYS: 'w1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
};

const without = (key: keyof typeof production) => {
  const { [key]: _removed, ...rest } = production;
  return rest;
};

describe('configuration', () => {
  test('starts with nothing set: development, embedded database, dev identity', () => {
    const config = loadConfig({});
    expect(config.env).toBe('development');
    expect(config.databaseUrl).toBeUndefined();
    expect(config.oauth.mode).toBe('dev');
    expect(config.port).toBe(3000);
    expect(config.rateLimits).toEqual({
      developerPerMinute: 600,
      publicReadsPerMinute: 1200,
      installsPerMinute: 300,
      failedAuthPerMinute: 30,
      signInFailuresPerMinute: 5,
      keyCreationsPerMinute: 10,
      submissionsPerMinute: 10,
      revisionsPerMinute: 10,
      webhookSendsPerMinute: 10,
      exchangeFailuresPerMinute: 10,
    });
    expect(config.maxAppsPerDeveloper).toBe(100);
  });

  test('a complete production configuration is accepted', () => {
    const config = loadConfig(production);
    expect(config.env).toBe('production');
    expect(config.oauth).toMatchObject({ mode: 'jwks', allowedClients: ['web-app', 'mobile-app'] });
    expect(config.apiKeySecrets).toEqual([{ id: 'k2026', secret: '0123456789abcdef0123456789abcdef' }]);
    expect(config.mail).toEqual({ smtpUrl: 'smtps://mailer:secret@smtp.example.com', from: 'App Marketplace <no-reply@marketplace.local>' });
  });

  test('production refuses a token verifier reached over http:// (the introspection secret would travel in clear); elsewhere it is allowed', () => {
    expect(() => loadConfig({ ...production, OAUTH_JWKS_URL: 'http://id.example.com/.well-known/jwks.json' })).toThrow(
      /^OAUTH_JWKS_URL must be an https:\/\/ URL in production/,
    );
    const introspection = {
      ...without('OAUTH_JWKS_URL'),
      OAUTH_INTROSPECTION_CLIENT_ID: 'marketplace',
      OAUTH_INTROSPECTION_CLIENT_SECRET: 'client secret value',
    };
    expect(() => loadConfig({ ...introspection, OAUTH_INTROSPECTION_URL: 'http://id.example.com/introspect' })).toThrow(
      /^OAUTH_INTROSPECTION_URL must be an https:\/\/ URL in production/,
    );
    expect(loadConfig({ ...introspection, OAUTH_INTROSPECTION_URL: 'https://id.example.com/introspect' }).oauth.mode).toBe('introspection');
    for (const variable of ['OAUTH_JWKS_URL', 'OAUTH_INTROSPECTION_URL']) {
      try {
        loadConfig({ ...production, [variable]: 'http://user:hunter2@id.example.com/x' });
      } catch (error) {
        expect(String(error)).not.toContain('hunter2');
      }
    }
    expect(
      loadConfig({ OAUTH_JWKS_URL: 'http://127.0.0.1:9/jwks', OAUTH_ISSUER: 'x', OAUTH_AUDIENCE: 'y', OAUTH_ALLOWED_CLIENTS: 'a' }).oauth.mode,
    ).toBe('jwks');
  });

  test('MAIL_FROM takes an address or a display form, and refuses anything else', () => {
    expect(loadConfig({ MAIL_FROM: 'apps@example.com' }).mail.from).toBe('apps@example.com');
    expect(loadConfig({ MAIL_FROM: '"Acme, Inc." <apps@example.com>' }).mail.from).toBe('"Acme, Inc." <apps@example.com>');
    for (const bad of ['apps', 'Acme <apps>', 'apps@example.com\r\nBcc: x@example.com', 'Acme <apps@example.com> more']) {
      expect(() => loadConfig({ MAIL_FROM: bad })).toThrow(/^MAIL_FROM must be an address/);
    }
  });

  test.each([
    ['DATABASE_URL', /DATABASE_URL is required/],
    ['SMTP_URL', /SMTP_URL is required/],
    ['API_KEY_SECRETS', /API_KEY_SECRETS is required/],
    ['WEBHOOK_ENCRYPTION_KEYS', /WEBHOOK_ENCRYPTION_KEYS is required/],
  ] as const)('production refuses to start without %s', (key, message) => {
    expect(() => loadConfig(without(key))).toThrow(message);
  });

  test('PUBLIC_URL: http(s) without query, fragment or credentials, its trailing slash dropped; localhost at PORT by default', () => {
    expect(loadConfig({}).publicUrl).toBe('http://localhost:3000');
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PUBLIC_URL: 'https://marketplace.example.com/' }).publicUrl).toBe('https://marketplace.example.com');
    expect(loadConfig({ PUBLIC_URL: 'https://example.com/marketplace/' }).publicUrl).toBe('https://example.com/marketplace');
    for (const bad of [
      'marketplace.example.com',
      'ftp://example.com',
      'https://example.com/?a=1',
      'https://example.com/#top',
      'https://user:pw@example.com',
    ]) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(/^PUBLIC_URL must be/);
    }
  });

  test('production refuses to start without a real token verifier (no dev identity)', () => {
    const { OAUTH_JWKS_URL: _j, OAUTH_ISSUER: _i, OAUTH_AUDIENCE: _a, ...rest } = production;
    expect(() => loadConfig(rest)).toThrow(/needs a token verifier/);
  });

  test('production refuses ALLOW_PRIVATE_FETCH=true', () => {
    expect(() => loadConfig({ ...production, ALLOW_PRIVATE_FETCH: 'true' })).toThrow(/ALLOW_PRIVATE_FETCH/);
  });

  test('production refuses a short API key secret', () => {
    expect(() => loadConfig({ ...production, API_KEY_SECRETS: 'k1:short' })).toThrow(/at least 32 characters/);
  });

  test('introspection is a real verifier too', () => {
    const { OAUTH_JWKS_URL: _j, OAUTH_ISSUER: _i, OAUTH_AUDIENCE: _a, ...rest } = production;
    const config = loadConfig({ ...rest, OAUTH_INTROSPECTION_URL: 'https://id.example.com/introspect' });
    expect(config.oauth.mode).toBe('introspection');
  });

  test('a verifier needs the clients it accepts', () => {
    expect(() => loadConfig({ ...production, OAUTH_ALLOWED_CLIENTS: '' })).toThrow(/OAUTH_ALLOWED_CLIENTS/);
  });

  test('job timings are bounded: supervision at least every second (pg-boss refuses 0), roll-ups within the 5 s counters contract', () => {
    expect(loadConfig({}).jobsSuperviseSeconds).toBe(10);
    expect(loadConfig({}).statsRollUpDelaySeconds).toBe(1);
    expect(loadConfig({ JOBS_SUPERVISE_SECONDS: '1', STATS_ROLL_UP_DELAY_SECONDS: '0' })).toMatchObject({
      jobsSuperviseSeconds: 1,
      statsRollUpDelaySeconds: 0,
    });
    expect(() => loadConfig({ JOBS_SUPERVISE_SECONDS: '0' })).toThrow(/^JOBS_SUPERVISE_SECONDS must be from 1 to 3600 seconds/);
    expect(() => loadConfig({ STATS_ROLL_UP_DELAY_SECONDS: '5' })).toThrow(/^STATS_ROLL_UP_DELAY_SECONDS must be from 0 to 4 seconds/);
    expect(() => loadConfig({ STATS_ROLL_UP_DELAY_SECONDS: '-1' })).toThrow(/^STATS_ROLL_UP_DELAY_SECONDS is invalid/);
  });

  test('a webhook receiver has 10 s an attempt unless the operator says otherwise, from 1 to 30 s', () => {
    expect(loadConfig({}).webhookTimeoutSeconds).toBe(10);
    expect(loadConfig({ WEBHOOK_TIMEOUT_SECONDS: '2' }).webhookTimeoutSeconds).toBe(2);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_SECONDS: '0' })).toThrow(/^WEBHOOK_TIMEOUT_SECONDS must be from 1 to 30 seconds/);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_SECONDS: '31' })).toThrow(/^WEBHOOK_TIMEOUT_SECONDS must be from 1 to 30 seconds/);
  });

  test('a malformed value names the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/^PORT is invalid/);
    expect(() => loadConfig({ APP_ENV: 'staging' })).toThrow(/^APP_ENV is invalid/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/^DATABASE_URL is invalid/);
    expect(() => loadConfig({ RATE_LIMITS: 'developer=lots' })).toThrow(/RATE_LIMITS/);
    expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8,not-a-cidr' })).toThrow(/TRUSTED_PROXIES entry "not-a-cidr"/);
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, fd00::/8' }).trustedProxies).toEqual(['10.0.0.0/8', 'fd00::/8']);
  });

  test('rate limits are configurable and can be switched off', () => {
    expect(Object.values(loadConfig({ RATE_LIMITS: 'off' }).rateLimits).every((perMinute) => perMinute === 0)).toBe(true);
    expect(loadConfig({ RATE_LIMITS: 'submissions=2' }).rateLimits).toMatchObject({ submissionsPerMinute: 2, developerPerMinute: 600 });
    expect(() => loadConfig({ RATE_LIMITS: 'submissions=two' })).toThrow(/RATE_LIMITS must be "off" or a list like developer=600,/);
    expect(loadConfig({ RATE_LIMITS: 'public=50' }).rateLimits.publicReadsPerMinute).toBe(50);
    expect(loadConfig({ RATE_LIMITS: 'failed-auth=5' }).rateLimits.failedAuthPerMinute).toBe(5);
    expect(loadConfig({ RATE_LIMITS: 'signin=3' }).rateLimits.signInFailuresPerMinute).toBe(3);
  });

  test('WEBHOOK_ENCRYPTION_KEYS: id:key pairs of 32 base64 bytes, the first encrypting; a development key otherwise', () => {
    const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');
    const keys = loadConfig({ ...production, WEBHOOK_ENCRYPTION_KEYS: `new:${key(1)}, old:${key(2)}` }).webhookEncryptionKeys;
    expect(keys.map((entry) => [entry.id, Buffer.from(entry.key).toString('base64')])).toEqual([
      ['new', key(1)],
      ['old', key(2)],
    ]);
    expect(loadConfig({}).webhookEncryptionKeys).toEqual([{ id: 'dev', key: expect.any(Uint8Array) }]);
    expect(loadConfig({}).webhookEncryptionKeys[0]!.key).toHaveLength(32);
    for (const bad of [key(1), `k:${Buffer.alloc(16).toString('base64')}`, 'k:not base64!', `bad id:${key(1)}`]) {
      expect(() => loadConfig({ WEBHOOK_ENCRYPTION_KEYS: bad })).toThrow(/^WEBHOOK_ENCRYPTION_KEYS must be/);
    }
  });

  test("a configuration error never echoes a secret's value", () => {
    const cases: Record<string, string>[] = [
      { DATABASE_URL: 'mysql://app:hunter2-db@db.internal/app' },
      { SMTP_URL: 'ftp://mailer:hunter2-smtp@smtp.example.com' },
      { API_KEY_SECRETS: 'hunter2-api-key-secret-without-an-id' },
      { ...production, API_KEY_SECRETS: 'k1:hunter2-short' },
      { WEBHOOK_ENCRYPTION_KEYS: 'k1:hunter2-not-base64' },
      { OAUTH_INTROSPECTION_URL: 'gopher://client:hunter2-intro@id.example.com' },
      { ...production, METRICS_TOKEN: 'hunter2-short' },
    ];
    for (const env of cases) {
      let message = '';
      try {
        loadConfig(env);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, JSON.stringify(Object.keys(env))).not.toBe('');
      expect(message).not.toContain('hunter2');
    }
    // Values that are not secrets are still shown, to help.
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow('got "eighty"');
  });

  test('metrics: served on the main port outside production; in production only behind METRICS_TOKEN or on METRICS_PORT', () => {
    expect(loadConfig({}).metrics).toEqual({ token: undefined, port: undefined, host: '127.0.0.1', onMainPort: true });
    // Production with neither: not served at all.
    expect(loadConfig(production).metrics.onMainPort).toBe(false);
    const token = 'm'.repeat(32);
    expect(loadConfig({ ...production, METRICS_TOKEN: token }).metrics).toMatchObject({ token, onMainPort: true });
    // A port of its own takes /metrics off the main port, on a loopback or private address.
    expect(loadConfig({ ...production, METRICS_PORT: '9100' }).metrics).toMatchObject({ port: 9100, host: '127.0.0.1', onMainPort: false });
    for (const host of ['10.1.2.3', '172.20.0.5', '192.168.1.10', 'fd12::5', '::1']) {
      expect(loadConfig({ ...production, METRICS_PORT: '9100', METRICS_HOST: host }).metrics.host).toBe(host);
    }
  });

  test('metrics: a public listener needs the token, the token is long, and the port is its own', () => {
    for (const host of ['0.0.0.0', '::', '203.0.113.7']) {
      expect(() => loadConfig({ ...production, METRICS_PORT: '9100', METRICS_HOST: host })).toThrow(
        /^METRICS_HOST must be a loopback or private address/,
      );
      expect(loadConfig({ ...production, METRICS_PORT: '9100', METRICS_HOST: host, METRICS_TOKEN: 'm'.repeat(32) }).metrics.host).toBe(host);
    }
    expect(() => loadConfig({ ...production, METRICS_TOKEN: 'too-short' })).toThrow('METRICS_TOKEN must be at least 32 characters in production');
    expect(() => loadConfig({ METRICS_PORT: '3000' })).toThrow(/^METRICS_PORT must be/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/^METRICS_PORT must be/);
    expect(() => loadConfig({ METRICS_PORT: '9100', METRICS_HOST: 'metrics.internal' })).toThrow(/^METRICS_HOST must be an IP address/);
  });
});
