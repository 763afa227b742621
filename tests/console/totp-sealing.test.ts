import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, runCli, type TestApp } from '../support/harness.ts';
import { loadConfig } from '../../src/config.ts';
import { currentTotpCode, newTotpSecret } from '../../src/modules/admin-sign-in/totp.ts';
import { openTotpSecret } from '../../src/modules/admin-sign-in/totp-secrets.ts';
import { ConsoleClient, createAdminAccount, signedIn, type AdminAccount } from './support.ts';

/**
 * TOTP secrets at rest: sealed under WEBHOOK_ENCRYPTION_KEYS like webhook secrets, bound to their
 * admin, so a database dump alone defeats no second factor; `secrets:reseal` rotates them with the
 * webhook secrets and seals any left in clear by earlier versions.
 */
const OLD = `old:${Buffer.alloc(32, 3).toString('base64')}`;
const NEW = `new:${Buffer.alloc(32, 5).toString('base64')}`;
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ WEBHOOK_ENCRYPTION_KEYS: OLD });
});
afterAll(() => t.close());

const secretColumn = async (id: string) => (await t.sql('select totp_secret from admins where id = ?', [id]))[0].totp_secret as string | null;

async function enrolFromAccountPage(account: AdminAccount): Promise<string> {
  const client = await signedIn(t, account);
  await client.get('/admin/account');
  expect((await client.post('/admin/account/totp/start')).status).toBe(303);
  const secret = (await client.get('/admin/account')).text.match(/<code>([A-Z2-7 ]+)<\/code>/)![1]!.replaceAll(' ', '');
  // The pending secret of an enrolment in progress is sealed too.
  const [pending] = await t.sql('select pending_totp_secret from admin_sessions where admin_id = ? and pending_totp_secret is not null', [
    account.id,
  ]);
  expect(pending.pending_totp_secret).toStartWith('v1.old.');
  expect((await client.post('/admin/account/totp/confirm', { code: currentTotpCode(secret) })).status).toBe(303);
  expect((await client.get('/admin/account')).text).toContain('On (authenticator app)');
  return secret;
}

async function signInWithCode(account: AdminAccount, secret: string, at = Date.now() + 30_000): Promise<number> {
  const client = new ConsoleClient(t);
  expect((await client.signIn(account.email, account.password)).location).toBe('/admin/login/code?next=%2Fadmin');
  await client.get('/admin/login/code');
  return (await client.post('/admin/login/code', { code: currentTotpCode(secret, at), next: '/admin' })).status;
}

const cli = (command: string, keys: string) => runCli(t, [command], { WEBHOOK_ENCRYPTION_KEYS: keys });

test('a dump of the admins table does not reveal a TOTP secret, and signing in with the code still works', async () => {
  const admin = await createAdminAccount(t, 'reviewer');
  const secret = await enrolFromAccountPage(admin);
  const dump = JSON.stringify(await t.sql('select * from admins where id = ?', [admin.id]));
  expect(dump).not.toContain(secret);
  expect(await secretColumn(admin.id)).toStartWith('v1.old.');
  expect(await signInWithCode(admin, secret)).toBe(303);
});

test('a secret left in clear by an earlier version still signs in, and is sealed by that sign-in', async () => {
  const admin = await createAdminAccount(t, 'reviewer');
  const secret = newTotpSecret();
  await t.sql('update admins set totp_secret = ? where id = ?', [secret, admin.id]);
  expect(await signInWithCode(admin, secret)).toBe(303);
  expect(await secretColumn(admin.id)).toStartWith('v1.old.');
});

test('secrets:reseal seals TOTP secrets (clear ones too) under the new key with the webhook secrets; the old key can then go', async () => {
  const sealed = await createAdminAccount(t, 'support');
  const sealedSecret = await enrolFromAccountPage(sealed);
  const clear = await createAdminAccount(t, 'support');
  const clearSecret = newTotpSecret();
  await t.sql('update admins set totp_secret = ? where id = ?', [clearSecret, clear.id]);

  const first = await cli('secrets:reseal', `${NEW},${OLD}`);
  expect(first).toMatch(/^resealed \d+ of \d+ admin second factors under key "new"$/m);
  expect(first).toMatch(/^resealed 0 of 0 webhook endpoints under key "new"$/m);
  expect(await cli('secrets:reseal', `${NEW},${OLD}`)).toMatch(/^resealed 0 of \d+ admin second factors under key "new"$/m);
  expect(await t.sql(`select id from admins where totp_secret is not null and totp_secret not like 'v1.new.%'`)).toEqual([]);

  const newOnly = loadConfig({ WEBHOOK_ENCRYPTION_KEYS: NEW }).webhookEncryptionKeys;
  const resealed = (await secretColumn(sealed.id))!;
  expect(openTotpSecret(newOnly, resealed, sealed.id)).toBe(sealedSecret);
  expect(openTotpSecret(newOnly, (await secretColumn(clear.id))!, clear.id)).toBe(clearSecret);
  // Bound to its admin: copied onto another account, it does not open.
  expect(() => openTotpSecret(newOnly, resealed, clear.id)).toThrow();
}, 30_000);
