import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { RETENTION_QUEUE } from '../../jobs/retention.ts';
import { loadConfig } from '../../src/config.ts';
import { eventually } from '../support/eventually.ts';
import { addEvents, insertApp, insertDeveloper } from '../support/fixtures.ts';
import { createTestApp, registerDeveloper, type TestApp } from '../support/harness.ts';

/** Housekeeping by age: what goes, what never goes, and how the ages are configured. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ RETENTION_RATE_LIMITS: '10m', RETENTION_EMAILS: '30d', RETENTION_ASSETS: '2h', RETENTION_WEBHOOKS: '10d' });
});
afterAll(() => t.close());

const count = async (table: string) => (await t.sql<{ n: number }>(`select count(*)::int as n from ${table}`))[0]!.n;

async function runRetention() {
  const id = await t.ctx.boss.send(RETENTION_QUEUE, {});
  await eventually(async () => (await t.sql(`select state from pgboss.job where id = ?`, [id]))[0]?.state === 'completed');
}

describe('scheduled retention', () => {
  test('expired admin sessions and review claims go; live ones stay', async () => {
    const [admin] = await t.sql<{ id: string }>(
      `insert into admins (id, email, password_hash, role, created_at)
       values (?, 'retention-admin@example.com', 'x', 'reviewer', now()) returning id`,
      [Bun.randomUUIDv7()],
    );
    await t.sql(
      `insert into admin_sessions (token_hash, admin_id, csrf_token, stage, expires_at) values
         ('expired-session', ?, 'c', 'active', now() - interval '1 minute'), ('live-session', ?, 'c', 'active', now() + interval '1 hour')`,
      [admin!.id, admin!.id],
    );
    await t.sql(
      `insert into review_claims (subject, admin_id, expires_at) values
         ('app:expired', ?, now() - interval '1 minute'), ('app:live', ?, now() + interval '5 minutes')`,
      [admin!.id, admin!.id],
    );
    await runRetention();
    expect(await t.sql(`select token_hash from admin_sessions where admin_id = ?`, [admin!.id])).toEqual([{ token_hash: 'live-session' }]);
    expect(await t.sql(`select subject from review_claims where admin_id = ?`, [admin!.id])).toEqual([{ subject: 'app:live' }]);
  });

  test('old rate-limit windows, sent e-mails, abandoned claims and unreferenced assets go; recent ones stay', async () => {
    await t.sql(
      `insert into rate_limit_counters (bucket, window_start, hits) values
         ('public-write:old', now() - interval '11 minutes', 3), ('public-write:new', now() - interval '9 minutes', 1)`,
    );
    await t.sql(
      `insert into emails (message_id, kind, to_address, subject, html, text_body, transport, sent_at) values
         ('old-mail', 'developer-verified', 'a@example.com', 's', 'h', 't', 'outbox', now() - interval '31 days'),
         ('new-mail', 'developer-verified', 'a@example.com', 's', 'h', 't', 'outbox', now() - interval '29 days')`,
    );
    await t.sql(
      `insert into email_claims (message_id, job_id, attempt, claimed_until) values
         ('old-claim', 'j', 0, now() - interval '31 days'), ('new-claim', 'j', 0, now() + interval '1 minute')`,
    );
    const bytes = (n: number) => Buffer.from([0x89, 0x50, 0x4e, 0x47, n]);
    await t.sql(
      `insert into assets (sha256, extension, content_type, byte_size, bytes, stored_at) values
         (repeat('a', 64), 'png', 'image/png', 5, ?, now() - interval '3 hours'),
         (repeat('b', 64), 'png', 'image/png', 5, ?, now() - interval '1 hour')`,
      [bytes(1), bytes(2)],
    );

    await runRetention();
    expect(await t.sql(`select bucket from rate_limit_counters where bucket like 'public-write:%' order by bucket`)).toEqual([
      { bucket: 'public-write:new' },
    ]);
    expect(await t.sql(`select message_id from emails where message_id in ('old-mail', 'new-mail')`)).toEqual([{ message_id: 'new-mail' }]);
    expect(await t.sql(`select message_id from email_claims order by message_id`)).toEqual([{ message_id: 'new-claim' }]);
    expect(await t.sql(`select left(sha256, 1) as s from assets where sha256 in (repeat('a', 64), repeat('b', 64))`)).toEqual([{ s: 'b' }]);
  });

  test('webhook events and settled deliveries go after RETENTION_WEBHOOKS; deliveries still retried stay; the delivery log shows the window', async () => {
    const developer = await registerDeveloper(t);
    const endpointId = Bun.randomUUIDv7();
    await t.sql(
      `insert into webhook_endpoints (id, developer_id, url, events, secret_sealed, created_at, updated_at)
       values (?, ?, 'https://hooks.example/retention', '{app.approved}', 'sealed', now(), now())`,
      [endpointId, developer.id],
    );
    const event = async (name: string, daysAgo: number, delivery: string | null) => {
      const id = Bun.randomUUIDv7();
      const at = `now() - interval '${daysAgo} days'`;
      await t.sql(`insert into webhook_events (id, developer_id, type, body, created_at) values (?, ?, 'app.approved', ?, ${at})`, [
        id,
        developer.id,
        name,
      ]);
      if (delivery) {
        await t.sql(
          `insert into webhook_deliveries (id, endpoint_id, event_id, status, attempts, retries, next_attempt_at, created_at, updated_at)
           values (?, ?, ?, ?, 1, true, case when ? = 'pending' then now() + interval '1 hour' end, ${at}, ${at})`,
          [Bun.randomUUIDv7(), endpointId, id, delivery, delivery],
        );
      }
    };
    await event('old-succeeded', 11, 'succeeded');
    await event('old-failed', 11, 'failed');
    await event('old-still-retried', 11, 'pending');
    // Its endpoint was deleted (the deliveries went with it): nothing refers to the event.
    await event('old-orphan', 11, null);
    await event('recent-failed', 9, 'failed');
    await event('recent-orphan', 9, null);

    await runRetention();
    const events = await t.sql(`select body from webhook_events where developer_id = ? order by body`, [developer.id]);
    expect(events.map((row: { body: string }) => row.body)).toEqual(['old-still-retried', 'recent-failed', 'recent-orphan']);
    const log = await t.call('GET', `/api/dev/webhooks/${endpointId}/deliveries`, { token: developer.oauthToken });
    expect(log.status).toBe(200);
    expect(log.body.data.map((row: { status: string }) => row.status).sort()).toEqual(['failed', 'pending']);
  });

  test('the audit log and the event rows counters derive from are never cleaned, however old', async () => {
    const app = await insertApp(t, { developerId: await insertDeveloper(t) });
    await addEvents(t, app.id, { installs: 3, ratings: [4] });
    await t.sql(`update installs set installed_at = now() - interval '10 years' where app_id = ?`, [app.id]);
    await t.sql(`update reviews set created_at = now() - interval '10 years', updated_at = now() - interval '10 years' where app_id = ?`, [app.id]);
    await t.sql(
      `insert into audit_log (id, actor, action, subject_type, subject_id, created_at)
       values (?, 'cli', 'app.approve', 'app', ?, now() - interval '10 years')`,
      [Bun.randomUUIDv7(), app.id],
    );
    const before = {
      installs: await count('installs'),
      reviews: await count('reviews'),
      audit: await count('audit_log'),
      transitions: await count('app_transitions'),
    };
    await runRetention();
    expect({
      installs: await count('installs'),
      reviews: await count('reviews'),
      audit: await count('audit_log'),
      transitions: await count('app_transitions'),
    }).toEqual(before);
  });

  test('runs hourly on the workers, and finished jobs are kept for RETENTION_JOBS by pg-boss', async () => {
    expect((await t.ctx.boss.getSchedules(RETENTION_QUEUE)).map((schedule) => schedule.cron)).toEqual(['23 * * * *']);
    expect((await t.ctx.boss.getQueue('mail.send'))?.deleteAfterSeconds).toBe(7 * 86_400);
  });
});

describe('retention configuration', () => {
  test('ages are durations with a unit, validated once at start-up', () => {
    expect(loadConfig({}).retention).toEqual({
      rateLimits: 3_600,
      jobs: 604_800,
      deadLetters: 2_592_000,
      emails: 7_776_000,
      assets: 604_800,
      webhooks: 2_592_000,
    });
    expect(loadConfig({ RETENTION_JOBS: '36h', RETENTION_ASSETS: '90m' }).retention).toMatchObject({ jobs: 129_600, assets: 5_400 });
    expect(() => loadConfig({ RETENTION_JOBS: '7 days' })).toThrow(/RETENTION_JOBS is invalid/);
    expect(() => loadConfig({ RETENTION_EMAILS: '7d' })).toThrow(/RETENTION_EMAILS must be at least 8d/);
    expect(() => loadConfig({ RETENTION_RATE_LIMITS: '60s' })).toThrow(/RETENTION_RATE_LIMITS must be at least 2m/);
    expect(() => loadConfig({ RETENTION_WEBHOOKS: '7d' })).toThrow(/RETENTION_WEBHOOKS must be at least 8d/);
  });
});
