import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { registerOAuthClient } from '../../src/modules/oauth-clients/oauth-clients.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import type { TestApp } from '../support/harness.ts';
import { eventually } from '../support/eventually.ts';

/** Shared builders for the app-listing tests. */

let counter = 0;

/** A listing that can be submitted as it is (logo and two screenshots). */
export function completeApp(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    name: `Task Timer ${counter}`,
    description: 'Tracks the time spent on each task.',
    category: 'PRODUCTIVITY',
    environment: 'production',
    logoUrl: 'https://cdn.example.com/logo.png',
    screenshots: [{ url: 'https://cdn.example.com/one.png' }, { url: 'https://cdn.example.com/two.png', caption: 'Two' }],
    ...overrides,
  };
}

/** The disclosure an app with an OAuth client needs before it is submitted. */
export const DISCLOSURE = {
  permissions: [{ scope: 'tasks:read', reason: 'Shows your tasks in the app' }],
  dataHandling: { storesUserData: false, locations: [], thirdParties: [], retentionDays: null },
};

/** A draft with only the required fields. */
export function minimalApp(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return { name: `Draft ${counter}`, description: 'A draft.', category: 'UTILITIES', environment: 'staging', ...overrides };
}

export async function createApp(t: TestApp, key: string, body: object = completeApp()) {
  const response = await t.call('POST', '/api/dev/apps', { token: key, body });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export const deps = (t: TestApp) => ({ em: t.ctx.orm.em.fork(), jobs: t.ctx.jobs, platformScopes: t.ctx.config.platformScopes });

/** Creates, submits and approves (as the CLI would) a complete app. */
export async function approvedApp(t: TestApp, key: string, body: object = completeApp()) {
  const app = await createApp(t, key, body);
  const submitted = await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
  if (submitted.status !== 200) throw new Error(`submit failed: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  return decideApp(deps(t), app.id, 'approve', { actor: CLI_ACTOR, version: submitted.body.version });
}

export const registerClient = (t: TestApp, developer: string, clientId: string) =>
  registerOAuthClient(t.ctx.orm.em.fork(), { developer, clientId, name: `Client ${clientId}` }, CLI_ACTOR);

/** The stored row, to show that a refused request changed nothing. */
export async function appRow(t: TestApp, id: string) {
  const [row] = await t.sql('select * from apps where id = ?', [id]);
  return row;
}

/** The app's asset-check jobs; `settled` waits until none is queued or running (the queue dedupes by app). */
export const assetCheckJobs = (t: TestApp, appId: string) =>
  t.sql<{ state: string }>(`select state from pgboss.job where name = 'apps.asset-checks' and data->>'appId' = ?`, [appId]);

export async function assetChecksSettled(t: TestApp, appId: string): Promise<number> {
  await eventually(async () => (await assetCheckJobs(t, appId)).every((job) => ['completed', 'failed'].includes(job.state)));
  return (await assetCheckJobs(t, appId)).length;
}

/** Service-level refusals as `{status, code}`, to compare with the HTTP ones. */
export async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string; errors?: unknown }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { status: number; code: string; errors?: unknown };
    return { status: e.status, code: e.code, errors: e.errors };
  }
  throw new Error('expected a refusal');
}
