import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ RATE_LIMITS: 'developer=3' });
});
afterAll(() => t.close());

describe('developer API rate limit', () => {
  test('counts per key, reports RateLimit-* headers, and answers 429 RATE_LIMITED with Retry-After past the limit', async () => {
    const developer = await registerDeveloper(t);
    const key = await mintKey(t, developer);
    const other = await mintKey(t, developer);
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await t.call('GET', '/api/dev/me', { token: key });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBe('3');
      seen.push(response.headers.get('ratelimit-remaining') ?? '');
    }
    expect(seen).toEqual(['2', '1', '0']);
    const limited = await t.call('GET', '/api/dev/me', { token: key });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await t.call('GET', '/api/dev/me', { token: other })).status).toBe(200);
  });
});
