import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestApp, listen, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { appRow, deps } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { decideRevision } from '../../src/modules/apps/revisions.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { startIssuer, type TestIssuer } from './oidc-issuer.ts';

const CLI = resolve(import.meta.dir, '../../src/publisher/cli.ts');

let t: TestApp;
let server: ReturnType<typeof listen>;
let issuer: TestIssuer;
/** The default key: the validate tests' runs stop before they would ask the service anything. */
let key: string;
let counter = 0;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

/** The CLI as a user runs it: a process of its own, in the directory of its manifest. */
function spawnCli(dir: string, args: string[], env: Record<string, string> = {}) {
  const process = Bun.spawn(['bun', CLI, ...args], {
    cwd: dir,
    env: { PATH: Bun.env.PATH ?? '', HOME: Bun.env.HOME ?? '', MARKETPLACE_URL: server.baseUrl, MARKETPLACE_API_KEY: key, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  return {
    async done(): Promise<Run> {
      const [stdout, stderr, code] = await Promise.all([new Response(process.stdout).text(), new Response(process.stderr).text(), process.exited]);
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      return { code, stdout, stderr, json };
    },
  };
}

const cli = (dir: string, args: string[], env: Record<string, string> = {}) => spawnCli(dir, args, env).done();

/** A developer of the test's own, and the CLI run with their key: each test publishes apps no other test reads. */
async function publisher() {
  const developer: TestDeveloper = await registerDeveloper(t);
  const own = await mintKey(t, developer);
  const withKey = (env: Record<string, string>) => ({ MARKETPLACE_API_KEY: own, ...env });
  return {
    key: own,
    cli: (dir: string, args: string[], env: Record<string, string> = {}) => cli(dir, args, withKey(env)),
    spawn: (dir: string, args: string[], env: Record<string, string> = {}) => spawnCli(dir, args, withKey(env)),
  };
}

/** A directory holding a marketplace.json (and any other files) for one scenario. */
function project(manifest: unknown, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'publisher-'));
  writeFileSync(join(dir, 'marketplace.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest, null, 2));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

function manifest(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    $schema: `${server.baseUrl}/api/schemas/listing.json`,
    name: `Focus Timer ${counter}`,
    description: 'Pomodoro timers on every task.',
    category: 'PRODUCTIVITY',
    environment: 'production',
    logoUrl: 'https://cdn.example.com/focus/logo.png',
    websiteUrl: 'https://focus.example.com',
    screenshots: [{ url: 'https://cdn.example.com/focus/1.png', caption: 'Timer' }, { url: 'https://cdn.example.com/focus/2.png' }],
    ...overrides,
  };
}

const appCount = async () => Number((await t.sql('select count(*)::int as count from apps'))[0].count);

beforeAll(async () => {
  issuer = await startIssuer();
  t = await createTestApp({ TRUSTED_PUBLISHING_ISSUERS: issuer.url, ALLOW_PRIVATE_FETCH: 'true' });
  server = listen(t);
  key = await mintKey(t, await registerDeveloper(t));
}, 30_000);

afterAll(async () => {
  await server.stop();
  await t.close();
  issuer.stop();
}, 30_000);

// The tests' CLI processes start and work side by side: each publishes as a developer of its own,
// and finds its apps by names of its own; the two that count every app run alone.
describe.concurrent('validate', () => {
  test('a good manifest passes without the service', async () => {
    const run = await cli(project(manifest({ longDescriptionFile: 'README.md' }), { 'README.md': '# Focus\nLong words.' }), ['validate'], {
      MARKETPLACE_URL: '',
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('valid listing manifest');
  });

  test('not JSON, unknown fields, bad values, a missing description file, both descriptions: exit 1 with what to fix', async () => {
    const cases: [string, string, Record<string, string>, string[]][] = [
      ['{"name": ', '', {}, ['not valid JSON']],
      [JSON.stringify(manifest({ screenshot: [] })), '', {}, ['unknown field "screenshot"']],
      [
        JSON.stringify(manifest({ category: 'GAMES', websiteUrl: 'ftp://x' })),
        '',
        {},
        ['category: must be one of', 'websiteUrl: must be an absolute http'],
      ],
      [JSON.stringify(manifest({ longDescriptionFile: 'missing.md' })), '', {}, ['longDescriptionFile: missing.md does not exist']],
      [JSON.stringify(manifest({ longDescription: 'x', longDescriptionFile: 'a.md' })), '', { 'a.md': 'x' }, ['not both']],
    ];
    for (const [content, , files, messages] of cases) {
      const run = await cli(project(content, files), ['validate']);
      expect({ content: content.slice(0, 40), code: run.code }).toEqual({ content: content.slice(0, 40), code: 1 });
      for (const message of messages) expect(run.stderr).toContain(message);
    }
  });

  test('usage and configuration mistakes exit 2', async () => {
    const dir = project(manifest());
    expect((await cli(dir, ['frobnicate'])).code).toBe(2);
    expect((await cli(dir, ['publish', '--wait=soon'])).code).toBe(2);
    const noUrl = await cli(dir, ['publish'], { MARKETPLACE_URL: '' });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('MARKETPLACE_URL');
    const badKey = await cli(dir, ['publish'], { MARKETPLACE_API_KEY: 'mk_not-a-real-key' });
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('MARKETPLACE_API_KEY');
    expect((await cli(dir, ['validate', 'nowhere.json'])).code).toBe(2);
  });

  test('the service is down: exit 4', async () => {
    const run = await cli(project(manifest()), ['publish'], { MARKETPLACE_URL: 'http://127.0.0.1:9' });
    expect(run.code).toBe(4);
  });
});

describe.concurrent('publish', () => {
  test('creates the app, then says "up to date", then clears what the manifest dropped', async () => {
    const me = await publisher();
    const listing = manifest({ longDescriptionFile: 'LISTING.md' });
    const dir = project(listing, { 'LISTING.md': '## Timers\nOne per task.' });
    const created = await me.cli(dir, ['publish', '--json']);
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({ action: 'created', status: 'DRAFT', version: 1 });
    const row = await appRow(t, created.json.id);
    expect(row.long_description).toBe('## Timers\nOne per task.');

    const again = await me.cli(dir, ['publish']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('up to date');
    expect((await appRow(t, created.json.id)).version).toBe(1);

    const { websiteUrl: _dropped, ...withoutWebsite } = listing;
    writeFileSync(join(dir, 'marketplace.json'), JSON.stringify({ ...withoutWebsite, app: created.json.id }));
    const cleared = await me.cli(dir, ['publish', '--json']);
    expect(cleared.json).toMatchObject({ action: 'updated', changedFields: ['websiteUrl'], version: 2 });
    expect((await appRow(t, created.json.id)).website_url).toBeNull();
  });

  test('a declared data access disclosure publishes once, then is up to date (labels and order are the service’s)', async () => {
    const me = await publisher();
    const dir = project(
      manifest({
        permissions: [
          { scope: 'tasks:write', reason: 'Starts a timer on the task you pick.' },
          { scope: 'tasks:read', reason: 'Shows your tasks next to their timers.' },
        ],
        dataHandling: { storesUserData: true, locations: ['EU'], thirdParties: [], retentionDays: 30 },
      }),
    );
    expect((await me.cli(dir, ['publish', '--json'])).json).toMatchObject({ action: 'created' });
    const again = await me.cli(dir, ['publish', '--json']);
    expect(again.json).toMatchObject({ action: 'up-to-date', changedFields: [] });
  });

  test('--wait ends 3 when no decision comes in time, and the submission stays in the queue', async () => {
    const me = await publisher();
    const listing = manifest();
    const run = await me.cli(project(listing), ['publish', '--submit', '--wait=0.02', '--json']);
    expect(run.code).toBe(3);
    expect(run.json).toMatchObject({ action: 'failed', exitCode: 3, decision: 'pending' });
    expect(run.json.error).toContain('still waiting for review');
    const [row] = await t.sql('select status from apps where name = ?', [listing.name]);
    expect(row.status).toBe('PENDING');
  }, 30_000);

  test('a live app gets a revision with exactly the fields that differ; the live listing waits for approval', async () => {
    const me = await publisher();
    const listing = manifest();
    const dir = project(listing);
    const created = (await me.cli(dir, ['publish', '--submit', '--json'])).json;
    const pending = await appRow(t, created.id);
    await decideApp(deps(t), created.id, 'approve', { actor: CLI_ACTOR, version: pending.version });

    writeFileSync(join(dir, 'marketplace.json'), JSON.stringify({ ...listing, app: created.slug, description: 'Timers, now with sounds.' }));
    const revised = await me.cli(dir, ['publish', '--json']);
    expect(revised.code).toBe(0);
    expect(revised.json).toMatchObject({ action: 'revision-opened', changedFields: ['description'], status: 'APPROVED' });
    const view = await t.call('GET', `/api/dev/apps/${created.id}`, { token: me.key });
    expect(Object.keys(view.body.pendingRevision.changes)).toEqual(['description']);
    expect(view.body.description).toBe('Pomodoro timers on every task.');

    expect((await me.cli(dir, ['publish'])).stdout).toContain('up to date');

    const waiting = me.spawn(dir, ['publish', '--wait=1', '--json']);
    await decideRevision(deps(t), created.id, 'approve', { actor: CLI_ACTOR, version: view.body.pendingRevision.version });
    const decided = await waiting.done();
    expect(decided.code).toBe(0);
    expect(decided.json.decision).toBe('approved');
    expect((await appRow(t, created.id)).description).toBe('Timers, now with sounds.');
  }, 30_000);

  /** A new listing published with --submit --wait by a CLI process of its own, once its submission is in the queue. */
  async function submittedWaiting(...args: string[]) {
    const me = await publisher();
    const listing = manifest();
    const waiting = me.spawn(project(listing), ['publish', '--submit', '--wait=1', ...args]);
    const app = await eventually(async () => (await t.sql(`select id, version from apps where status = 'PENDING' and name = ?`, [listing.name]))[0]);
    return { waiting, app };
  }

  // Serial, these two: each gives its CLI process 5 s to submit; beside ten other CLI processes on a
  // loaded machine one took longer.
  test.serial('--submit --wait ends 0 on approval', async () => {
    const { waiting, app } = await submittedWaiting('--json');
    await decideApp(deps(t), app.id, 'approve', { actor: CLI_ACTOR, version: app.version });
    const run = await waiting.done();
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ action: 'created', submitted: true, decision: 'approved', status: 'APPROVED' });
  });

  test.serial('--submit --wait ends 1 on rejection, with the reasons', async () => {
    const { waiting, app } = await submittedWaiting();
    await decideApp(deps(t), app.id, 'reject', { actor: CLI_ACTOR, version: app.version, reason: 'The screenshots show another product.' });
    const run = await waiting.done();
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('The screenshots show another product.');
  });

  // Serial: this test and the next count every app in the database.
  test.serial('a bad manifest is refused before the service is asked: exit 1, nothing created', async () => {
    const before = await appCount();
    for (const [content, files] of [
      ['{"name": ', {}],
      [JSON.stringify(manifest({ screenshot: [] })), {}],
      [JSON.stringify(manifest({ longDescriptionFile: 'missing.md' })), {}],
    ] as [string, Record<string, string>][]) {
      const run = await cli(project(content, files), ['publish', '--submit', '--json']);
      expect({ content: content.slice(0, 40), code: run.code, action: run.json?.action }).toEqual({
        content: content.slice(0, 40),
        code: 1,
        action: 'failed',
      });
    }
    expect(await appCount()).toBe(before);
  });

  test.serial('an app the key cannot reach is exit 1 and changes nothing', async () => {
    const me = await publisher();
    const stranger = await registerDeveloper(t);
    const strangerKey = await mintKey(t, stranger);
    const theirs = await t.call('POST', '/api/dev/apps', { token: strangerKey, body: manifest({ $schema: undefined }) });
    const before = await appCount();
    const run = await me.cli(project(manifest({ app: theirs.body.id })), ['publish', '--json']);
    expect(run.code).toBe(1);
    expect(run.json).toMatchObject({ action: 'failed', exitCode: 1 });
    expect(run.json.error).toContain('not found among the apps this key reaches');
    expect(await appCount()).toBe(before);
  });

  test('status reports where the listing stands', async () => {
    const me = await publisher();
    const dir = project(manifest());
    await me.cli(dir, ['publish', '--submit']);
    const run = await me.cli(dir, ['status', '--json']);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ action: 'status', status: 'PENDING' });
  });
});

describe.concurrent('--oidc', () => {
  /** An app whose `repository`'s publish.yml is a trusted publisher, and its manifest changed since, so a publish updates it. */
  async function publishedFromCi(repository: string) {
    const me = await publisher();
    const listing = manifest();
    const dir = project(listing);
    const created = (await me.cli(dir, ['publish', '--json'])).json;
    await t.call('POST', `/api/dev/apps/${created.id}/trusted-publishers`, {
      token: me.key,
      body: { issuer: issuer.url, repository, workflow: 'publish.yml' },
    });
    writeFileSync(join(dir, 'marketplace.json'), JSON.stringify({ ...listing, description: 'Published by CI.' }));
    return { dir, id: created.id as string };
  }
  /** That workflow's job token. */
  const jobToken = (repository: string, claims: Record<string, unknown> = {}) =>
    issuer.token({ repository, job_workflow_ref: `${repository}/.github/workflows/publish.yml@refs/heads/main`, ...claims });

  test('trades the CI token for a key to the registered app and publishes with it', async () => {
    const { dir, id } = await publishedFromCi('acme/focus-cli');
    const token = await jobToken('acme/focus-cli');
    const run = await cli(dir, ['publish', '--oidc', '--json'], { MARKETPLACE_API_KEY: '', MARKETPLACE_OIDC_TOKEN: token });
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ id, action: 'updated', changedFields: ['description'] });

    const replayed = await cli(dir, ['publish', '--oidc'], { MARKETPLACE_API_KEY: '', MARKETPLACE_OIDC_TOKEN: token });
    expect(replayed.code).toBe(2);
    expect(replayed.stderr).toContain('already used');
  });

  test("on GitHub Actions: asks the job's token endpoint for a token with the service's audience, then publishes", async () => {
    const { dir, id } = await publishedFromCi('acme/focus-actions');
    // What GitHub hands a job with `permissions: id-token: write`: a URL (with its own query) and a bearer for it.
    const asked: URL[] = [];
    const runner = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(request) {
        const url = new URL(request.url);
        asked.push(url);
        if (request.headers.get('authorization') !== 'Bearer runner-request-token') return new Response('no', { status: 403 });
        const value = await jobToken('acme/focus-actions', { aud: url.searchParams.get('audience') ?? 'none' });
        return Response.json({ value });
      },
    });
    try {
      const run = await cli(dir, ['publish', '--oidc', '--json'], {
        MARKETPLACE_API_KEY: '',
        ACTIONS_ID_TOKEN_REQUEST_URL: `http://127.0.0.1:${runner.port}/_apis/idtoken?api-version=2.0`,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'runner-request-token',
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.json).toMatchObject({ id, action: 'updated', changedFields: ['description'] });
      expect(asked.map((url) => [url.pathname, url.searchParams.get('api-version'), url.searchParams.get('audience')])).toEqual([
        ['/_apis/idtoken', '2.0', 'marketplace'],
      ]);

      const refused = await cli(dir, ['publish', '--oidc'], {
        MARKETPLACE_API_KEY: '',
        ACTIONS_ID_TOKEN_REQUEST_URL: `http://127.0.0.1:${runner.port}/_apis/idtoken?api-version=2.0`,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'a-stale-request-token',
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("check the job's id-token permission");
    } finally {
      await runner.stop(true);
    }
  });

  test('without a token to trade, exit 2 saying what the job needs', async () => {
    const run = await cli(project(manifest()), ['publish', '--oidc'], { MARKETPLACE_API_KEY: '' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('id-token: write');
  });
});
