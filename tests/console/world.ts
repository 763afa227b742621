import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { completeApp, createApp, deps } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';

/**
 * A small marketplace for console tests, built through the developer API as developers would:
 * a developer awaiting verification, a verified one with apps in every state (one PENDING, one
 * approved with a pending revision, one rejected and resubmitted), an install and a review.
 */
export interface World {
  pendingDeveloper: TestDeveloper;
  developer: TestDeveloper;
  key: string;
  pending: { id: string; slug: string; name: string; version: number };
  approved: { id: string; slug: string; name: string };
  resubmitted: { id: string; slug: string; name: string };
  reviewId: string;
}

export async function submit(t: TestApp, key: string, id: string) {
  const response = await t.call('POST', `/api/dev/apps/${id}/submit`, { token: key });
  if (response.status !== 200) throw new Error(`submit failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export async function buildWorld(t: TestApp, names: { pending?: string; approved?: string } = {}): Promise<World> {
  const pendingDeveloper = await registerDeveloper(t, { verified: false, name: 'Grace Pending' });
  const developer = await registerDeveloper(t, { name: 'Ada Builder' });
  const key = await mintKey(t, developer);

  const pendingApp = await createApp(t, key, completeApp({ name: names.pending ?? 'Focus Timer', longDescription: 'Pomodoro **sessions**.' }));
  const pending = await submit(t, key, pendingApp.id);

  const approvedApp = await createApp(t, key, completeApp({ name: names.approved ?? 'Task Board', websiteUrl: 'https://board.example.com' }));
  const submitted = await submit(t, key, approvedApp.id);
  await decideApp(deps(t), approvedApp.id, 'approve', { actor: CLI_ACTOR, version: submitted.version });
  await t.call('POST', `/api/dev/apps/${approvedApp.id}/revisions`, {
    token: key,
    body: { description: 'Boards for every team.', longDescription: 'Line one\nLine two changed\nLine three' },
  });

  const rejectedApp = await createApp(t, key, completeApp({ name: 'Calendar Sync', description: 'Syncs calendars.' }));
  const first = await submit(t, key, rejectedApp.id);
  await decideApp(deps(t), rejectedApp.id, 'reject', { actor: CLI_ACTOR, version: first.version, reason: 'Screenshots are blurry.' });
  await t.call('PUT', `/api/dev/apps/${rejectedApp.id}`, { token: key, body: { description: 'Syncs your calendars both ways.' } });
  const resubmitted = await submit(t, key, rejectedApp.id);

  // A user installs the approved app and reviews it.
  const user = await t.token('reviewer-user-1');
  await t.call('POST', `/api/apps/${approvedApp.slug}/install`, { token: user, body: {} });
  const review = await t.call('POST', `/api/apps/${approvedApp.slug}/reviews`, {
    token: user,
    body: { rating: 4, title: 'Handy', body: 'Does the job.' },
  });
  if (review.status !== 201) throw new Error(`review failed: ${review.status} ${JSON.stringify(review.body)}`);
  // The approval e-mail reaches the outbox.
  await eventually(async () => (await t.sql('select 1 from emails')).length > 0);

  return {
    pendingDeveloper,
    developer,
    key,
    pending: { id: pending.id, slug: pending.slug, name: pending.name, version: pending.version },
    approved: { id: approvedApp.id, slug: approvedApp.slug, name: approvedApp.name },
    resubmitted: { id: resubmitted.id, slug: resubmitted.slug, name: resubmitted.name },
    reviewId: review.body.id,
  };
}

/** A stats roll-up that dies: the stats table refuses writes while the job runs, and the job has no retries left. */
export async function deadStatsJob(t: TestApp): Promise<string> {
  await t.sql(`create function refuse_stats() returns trigger language plpgsql as $$ begin raise exception 'disk full (test)'; end $$`);
  await t.sql('create trigger refuse_stats before insert or update on app_stats for each row execute function refuse_stats()');
  await t.ctx.boss.send('stats.installs', {}, { retryLimit: 0 });
  const [dead] = await eventually(async () => {
    const rows = await t.sql<{ id: string }>(`select id from pgboss.job where name = 'stats.installs.dead' and state = 'created'`);
    return rows.length ? rows : null;
  });
  await t.sql('drop trigger refuse_stats on app_stats');
  await t.sql('drop function refuse_stats');
  return dead!.id;
}
