import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { approvedApp } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { sendNotification } from '../../jobs/mail.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const outboxRow = (messageId: string) => eventually(async () => (await t.sql('select * from emails where message_id = ?', [messageId]))[0]);

test('without SMTP_URL, notifications land in the dev outbox with their HTML and text', async () => {
  expect(t.ctx.mailer.transport).toBe('outbox');
  const dev = await registerDeveloper(t);
  const verified = await outboxRow(`developer-verified:${dev.id}`);
  expect(verified).toMatchObject({
    kind: 'developer-verified',
    to_address: dev.email,
    subject: 'Your developer account is verified',
    transport: 'outbox',
    developer_id: dev.id,
    app_id: null,
  });
  expect(verified.html).toStartWith('<!doctype html>');
  expect(verified.text_body).toContain('You can now create API keys');

  const app = await approvedApp(t, await mintKey(t, dev));
  const [job] = await t.sql(`select data->>'messageId' as message_id from pgboss.job where name = 'mail.send' and data->>'appId' = ?`, [app.id]);
  const approved = await outboxRow(job.message_id);
  expect(approved).toMatchObject({ kind: 'app-approved', transport: 'outbox', app_id: app.id, subject: `"${app.name}" is approved and live` });
});

test('a message whose developer no longer exists completes without sending', async () => {
  const developerId = crypto.randomUUID();
  const messageId = `developer-verified:${developerId}`;
  await sendNotification(t.ctx, { messageId, kind: 'developer-verified', developerId });
  expect(await t.sql('select message_id from emails where message_id = ?', [messageId])).toEqual([]);
});
