import { afterAll, beforeAll, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import { createTestApp, mintKey, registerDeveloper, runCli, type TestApp } from '../support/harness.ts';
import { loadConfig } from '../../src/config.ts';
import { signedHeaders } from '../../src/modules/webhooks/webhook-secrets.ts';

/**
 * Rotating WEBHOOK_ENCRYPTION_KEYS: put a new key first, run `webhooks:reseal` (now `secrets:reseal`), drop the old key.
 * Every secret (the previous one during a rotation overlap too) then opens under the new key
 * alone, and signs exactly as before.
 */
const OLD = `old:${Buffer.alloc(32, 7).toString('base64')}`;
const NEW = `new:${Buffer.alloc(32, 9).toString('base64')}`;
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true', WEBHOOK_ENCRYPTION_KEYS: OLD }, { role: 'api' });
});
afterAll(() => t.close());

const reseal = (keys: string) => runCli(t, ['webhooks:reseal'], { WEBHOOK_ENCRYPTION_KEYS: keys });

test('webhooks:reseal moves every secret under the new key; the old key can then be dropped and receivers notice nothing', async () => {
  const key = await mintKey(t, await registerDeveloper(t));
  const first = await t.call('POST', '/api/dev/webhooks', { token: key, body: { url: 'http://127.0.0.1:9/a', events: ['app.approved'] } });
  const second = await t.call('POST', '/api/dev/webhooks', { token: key, body: { url: 'http://127.0.0.1:9/b', events: ['app.approved'] } });
  // The second is mid-rotation: its previous secret still signs.
  const rotated = await t.call('POST', `/api/dev/webhooks/${second.body.id}/rotate-secret`, { token: key });
  expect(rotated.status).toBe(200);

  // `webhooks:reseal` is the former name of `secrets:reseal`, which reseals admins' TOTP secrets too.
  expect((await reseal(`${NEW},${OLD}`)).split('\n')[0]).toBe('resealed 2 of 2 webhook endpoints under key "new"');
  expect((await reseal(`${NEW},${OLD}`)).split('\n')[0]).toBe('resealed 0 of 2 webhook endpoints under key "new"');

  const newOnly = loadConfig({ WEBHOOK_ENCRYPTION_KEYS: NEW }).webhookEncryptionKeys;
  const body = JSON.stringify({ type: 'ping' });
  const signatures = async (id: string) => {
    const [row] = await t.sql('select secret_sealed, previous_secret_sealed from webhook_endpoints where id = ?', [id]);
    expect(row.secret_sealed).toStartWith('v1.new.');
    return signedHeaders(
      newOnly,
      { endpointId: id, secretSealed: row.secret_sealed, previousSecretSealed: row.previous_secret_sealed },
      'msg_1',
      body,
    );
  };
  const firstHeaders = await signatures(first.body.id);
  expect(() => new Webhook(first.body.secret).verify(body, firstHeaders)).not.toThrow();
  const headers = await signatures(second.body.id);
  expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
  for (const secret of [second.body.secret, rotated.body.secret]) expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
}, 30_000);
