import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';

/**
 * A key minted by a key while that key is being revoked must not outlive the revocation: either
 * the minting is refused or the new key is revoked with its parent.
 */
let t: TestApp;
let developer: TestDeveloper;
beforeAll(async () => {
  t = await createTestApp();
  developer = await registerDeveloper(t);
});
afterAll(() => t.close());

test('minting and revoking the parent at once never leaves a live child', async () => {
  for (let round = 0; round < 25; round += 1) {
    const parent = await mintKey(t, developer, ['APP_READ']);
    const [{ id: parentId }] = await t.sql('select id from api_keys where developer_id = ? order by created_at desc limit 1', [developer.id]);
    const [child, revoked] = await Promise.all([
      t.call('POST', '/api/dev/api-keys', { token: parent, body: { name: `child ${round}`, scopes: ['APP_READ'] } }),
      t.call('DELETE', `/api/dev/api-keys/${parentId}`, { token: developer.oauthToken }),
    ]);
    expect(revoked.status).toBe(200);
    expect([201, 401]).toContain(child.status);
    if (child.status === 201) {
      const [row] = await t.sql('select revoked_at from api_keys where id = ?', [child.body.id]);
      expect(row.revoked_at, `round ${round}`).not.toBeNull();
      expect((await t.call('GET', '/api/dev/me', { token: child.body.key })).status).toBe(401);
    }
  }
});
