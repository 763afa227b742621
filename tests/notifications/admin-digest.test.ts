import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, registerDeveloper, type TestApp } from '../support/harness.ts';
import { eventually } from '../support/eventually.ts';
import { insertApp, insertDeveloper } from '../support/fixtures.ts';
import { createAdmin } from '../../src/modules/admin-accounts/admins.service.ts';
import { ADMIN_DIGEST_QUEUE } from '../../jobs/admin-digest.ts';
import { enqueueAdminDigests } from '../../src/modules/notifications/admin-digest.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const digests = () => t.sql(`select message_id, to_address, subject, text_body from emails where kind = 'admin-digest' order by message_id`);
/** Waits until every digest job of `day` has run (none waiting or running), so what they would send is sent. */
const digestJobsDone = (day: string) =>
  eventually(async () => {
    const jobs = await t.sql(`select state from pgboss.job where name = 'mail.send' and singleton_key like ?`, [`admin-digest:%:${day}`]);
    return jobs.length > 0 && jobs.every((job: { state: string }) => !['created', 'retry', 'active'].includes(job.state));
  });

test('a day with nothing overdue sends no digest', async () => {
  await createAdmin(t.ctx.orm.em.fork(), { email: 'quiet@example.com', password: 'correct horse battery' });
  await registerDeveloper(t, { verified: false });
  expect(await enqueueAdminDigests({ em: t.ctx.orm.em, jobs: t.ctx.jobs }, '2026-01-01')).toBe(1);
  await digestJobsDone('2026-01-01');
  expect(await digests()).toHaveLength(0);
});

test('each admin gets one digest a day listing developers and apps past their review targets', async () => {
  await createAdmin(t.ctx.orm.em.fork(), { email: 'reviewer@example.com', password: 'correct horse battery', role: 'reviewer' });
  const waiting = await registerDeveloper(t, { verified: false, name: 'Patient <Pat>' });
  await t.sql(`update developers set created_at = now() - interval '30 hours' where id = ?`, [waiting.id]);
  const owner = await insertDeveloper(t);
  const overdueApp = await insertApp(t, { developerId: owner, status: 'PENDING', name: 'Slow Review' });
  const freshApp = await insertApp(t, { developerId: owner, status: 'PENDING', name: 'Fresh Review' });
  await t.sql(`update apps set submitted_at = now() - interval '3 days' where id = ?`, [overdueApp.id]);
  await t.sql(`update apps set submitted_at = now() - interval '1 hour' where id = ?`, [freshApp.id]);

  expect(await enqueueAdminDigests({ em: t.ctx.orm.em, jobs: t.ctx.jobs }, '2026-01-02')).toBe(2);
  const sent = await eventually(async () => ((await digests()).length === 2 ? digests() : null));
  expect(sent.map((row) => row.to_address).sort()).toEqual(['quiet@example.com', 'reviewer@example.com']);
  const [digest] = sent;
  expect(digest.subject).toBe('Marketplace review digest: 2 overdue');
  expect(digest.text_body).toContain(`Patient <Pat> <${waiting.email}>`);
  expect(digest.text_body).toContain(`Slow Review (${overdueApp.slug})`);
  expect(digest.text_body).not.toContain('Fresh Review');

  await enqueueAdminDigests({ em: t.ctx.orm.em, jobs: t.ctx.jobs }, '2026-01-02');
  await digestJobsDone('2026-01-02');
  expect(await digests()).toHaveLength(2);
});

test('a disabled admin gets no digest', async () => {
  await createAdmin(t.ctx.orm.em.fork(), { email: 'departed@example.com', password: 'correct horse battery', role: 'reviewer' });
  await t.sql(`update admins set disabled_at = now() where email = 'departed@example.com'`);
  // Something is still overdue from the test above, so every admin who is considered is written to.
  expect(await enqueueAdminDigests({ em: t.ctx.orm.em, jobs: t.ctx.jobs }, '2026-01-03')).toBe(2);
  await digestJobsDone('2026-01-03');
  const sent = (await digests()).filter((row) => row.message_id.endsWith(':2026-01-03'));
  expect(sent.map((row) => row.to_address).sort()).toEqual(['quiet@example.com', 'reviewer@example.com']);
});

test('the digest is scheduled daily by the workers', async () => {
  expect((await t.ctx.boss.getSchedules(ADMIN_DIGEST_QUEUE)).map((s) => s.cron)).toEqual(['0 7 * * *']);
});
