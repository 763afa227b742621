import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { eventually } from '../support/eventually.ts';
import { API_KEY_EXPIRY_QUEUE } from '../../jobs/api-key-expiry.ts';
import { scanExpiringKeys } from '../../src/modules/api-keys/key-expiry.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const keyId = async (key: string) => (await t.sql('select id from api_keys where last4 = ?', [key.slice(-4)]))[0].id as string;
const expireIn = (id: string, interval: string) => t.sql(`update api_keys set expires_at = now() + ?::interval where id = ?`, [interval, id]);
const reminders = () => t.sql(`select message_id, to_address, subject, text_body from emails where kind = 'api-key-expiring' order by message_id`);

test('a key expiring within 7 days gets one reminder; later, revoked and far-off keys get none', async () => {
  const developer = await registerDeveloper(t);
  const soon = await keyId(await mintKey(t, developer, ['APP_READ'], { name: 'CI <deploy>' }));
  const later = await keyId(await mintKey(t, developer, ['APP_READ']));
  const revoked = await keyId(await mintKey(t, developer, ['APP_READ']));
  const expired = await keyId(await mintKey(t, developer, ['APP_READ']));
  await expireIn(soon, '3 days');
  await expireIn(later, '30 days');
  await expireIn(revoked, '2 days');
  await expireIn(expired, '-1 hour');
  await t.call('DELETE', `/api/dev/api-keys/${revoked}`, { token: developer.oauthToken });

  expect(await scanExpiringKeys({ em: t.ctx.orm.em, jobs: t.ctx.jobs })).toBe(1);
  const [reminder] = await eventually(async () => {
    const rows = await reminders();
    return rows.length > 0 ? rows : null;
  });
  expect(reminder).toMatchObject({ message_id: `api-key-expiring:${soon}`, to_address: developer.email });
  expect(reminder.subject).toMatch(/^Your API key "CI <deploy>" expires on \d{4}-\d\d-\d\d$/);
  expect(reminder.text_body).toContain('POST /api/dev/api-keys');

  // Scanning again (every hour, in production) never reminds twice.
  expect(await scanExpiringKeys({ em: t.ctx.orm.em, jobs: t.ctx.jobs })).toBe(0);
  // The second scan enqueued nothing: the reminder's one mail job is the first one, and it is done.
  const mailJobs = () => t.sql<{ state: string }>('select state from pgboss.job where singleton_key = ?', [`api-key-expiring:${soon}`]);
  await eventually(async () => (await mailJobs()).every((job) => job.state === 'completed'));
  expect(await mailJobs()).toHaveLength(1);
  expect(await reminders()).toHaveLength(1);
});

test('the scan is scheduled hourly by the workers', async () => {
  const schedules = await t.ctx.boss.getSchedules(API_KEY_EXPIRY_QUEUE);
  expect(schedules.map((s) => s.cron)).toEqual(['5 * * * *']);
});
