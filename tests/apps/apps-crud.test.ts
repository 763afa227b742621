import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { assertListingUrls } from '../../src/modules/apps/app-changes.ts';
import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { appRow, assetCheckJobs, assetChecksSettled, completeApp, createApp, deps, minimalApp, registerClient, refusal } from './fixtures.ts';

let t: TestApp;
let dev: TestDeveloper;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  dev = await registerDeveloper(t);
  key = await mintKey(t, dev);
});
afterAll(() => t.close());

describe('create', () => {
  test('a new app is a DRAFT at version 1 with a slug, normalised screenshots and the owner view', async () => {
    const response = await t.call('POST', '/api/dev/apps', {
      token: key,
      body: completeApp({
        name: 'Crème Brûlée Planner',
        screenshots: [
          { url: 'https://cdn.example.com/b.png', order: 5 },
          { url: 'https://cdn.example.com/a.png', caption: 'First' },
        ],
        reviewNotes: 'Log in with demo/demo',
      }),
    });
    expect(response.status).toBe(201);
    const app = response.body;
    expect(app.status).toBe('DRAFT');
    expect(app.version).toBe(1);
    expect(app.slug).toBe('creme-brulee-planner');
    expect(app.featured).toBe(false);
    expect(app.screenshots).toEqual([
      { url: 'https://cdn.example.com/a.png', caption: 'First', order: 1 },
      { url: 'https://cdn.example.com/b.png', caption: null, order: 5 },
    ]);
    expect(app).toMatchObject({
      installCount: 0,
      reviewCount: 0,
      averageRating: 0,
      submittedAt: null,
      reviewedAt: null,
      rejectionReason: null,
      reviewNotes: 'Log in with demo/demo',
      pendingRevision: null,
      oauthClientId: null,
      longDescription: null,
      longDescriptionHtml: null,
    });
    expect(Array.isArray(app.assetChecks)).toBe(true);
    expect(new Date(app.createdAt).toISOString()).toBe(app.createdAt);
    const [reserved] = await t.sql('select app_id from app_slugs where slug = ?', [app.slug]);
    expect(reserved.app_id).toBe(app.id);
  });

  test('asset checks are enqueued with the creation', async () => {
    const app = await createApp(t, key);
    const jobs = await t.sql(`select data from pgboss.job where name = 'apps.asset-checks' and data->>'appId' = ?`, [app.id]);
    expect(jobs.length).toBeGreaterThanOrEqual(1);
  });

  test('screenshot order defaults to the array index', async () => {
    const app = await createApp(
      t,
      key,
      minimalApp({ screenshots: [{ url: 'https://cdn.example.com/x.png' }, { url: 'https://cdn.example.com/y.png' }] }),
    );
    expect(app.screenshots.map((s: { order: number }) => s.order)).toEqual([0, 1]);
  });

  test.each([
    ['more than 6 screenshots', { screenshots: Array.from({ length: 7 }, (_, i) => ({ url: `https://cdn.example.com/${i}.png` })) }],
    ['a control character in the name', { name: 'Bad\u0007Name' }],
    ['a newline in the description', { description: 'two\nlines' }],
    ['a relative logo URL', { logoUrl: '/logo.png' }],
    ['a non-http URL', { websiteUrl: 'ftp://example.com/' }],
    ['a javascript: URL', { supportUrl: 'javascript:alert(1)' }],
    ['an unknown category', { category: 'GAMES' }],
    ['an unknown environment', { environment: 'prod' }],
    ['an unknown field', { price: 3 }],
    ['an empty name', { name: '' }],
    ['a name over 80 characters', { name: 'x'.repeat(81) }],
    ['a caption over 200 characters', { screenshots: [{ url: 'https://cdn.example.com/a.png', caption: 'c'.repeat(201) }] }],
  ])('400 VALIDATION_FAILED for %s, and nothing is created', async (_what, overrides) => {
    const [before] = await t.sql('select count(*)::int as n from apps');
    const response = await t.call('POST', '/api/dev/apps', { token: key, body: completeApp(overrides) });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(response.body.errors.length).toBeGreaterThan(0);
    const [after] = await t.sql('select count(*)::int as n from apps');
    expect(after.n).toBe(before.n);
  });

  test.each(['name', 'description', 'category', 'environment'])('a missing %s is 400 and named', async (field) => {
    const body: Record<string, unknown> = completeApp();
    delete body[field];
    const response = await t.call('POST', '/api/dev/apps', { token: key, body });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(response.body.errors)).toContain(field);
  });

  test('malformed JSON is 400', async () => {
    const response = await t.call('POST', '/api/dev/apps', { token: key, rawBody: '{"name":' });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });
});

describe('URL policy', () => {
  test("a production app's every stored URL must be https, screenshots included, each named", () => {
    let refused: unknown;
    try {
      assertListingUrls('production', {
        logoUrl: 'http://cdn.example.com/logo.png',
        websiteUrl: 'https://ok.example.com',
        screenshots: [{ url: 'https://cdn.example.com/1.png' }, { url: 'http://cdn.example.com/2.png' }],
      });
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      errors: [
        { path: 'logoUrl', message: 'must be an https:// URL' },
        { path: 'screenshots[1].url', message: 'must be an https:// URL' },
      ],
    });
    expect(() => assertListingUrls('staging', { logoUrl: 'http://cdn.example.com/logo.png' })).not.toThrow();
    expect(() => assertListingUrls('localhost', { logoUrl: 'http://localhost:8080/logo.png' })).not.toThrow();
  });

  test('whatever APP_ENV is, http is refused for a production app on create, PUT and revision, and allowed for staging', async () => {
    const created = await t.call('POST', '/api/dev/apps', {
      token: key,
      body: { name: 'Plain Http', description: 'd', category: 'OTHER', environment: 'production', websiteUrl: 'http://example.com' },
    });
    expect(created.status).toBe(400);
    expect(created.body.errors).toEqual([{ path: 'websiteUrl', message: 'must be an https:// URL' }]);
    const staging = await t.call('POST', '/api/dev/apps', {
      token: key,
      body: { name: 'Staging Http', description: 'd', category: 'OTHER', environment: 'staging', websiteUrl: 'http://example.com' },
    });
    expect(staging.status).toBe(201);
    const production = await t.call('POST', '/api/dev/apps', {
      token: key,
      body: { name: 'Tls Only', description: 'd', category: 'OTHER', environment: 'production' },
    });
    const put = await t.call('PUT', `/api/dev/apps/${production.body.id}`, { token: key, body: { supportUrl: 'http://example.com/help' } });
    expect(put.status).toBe(400);
    expect(put.body.errors).toEqual([{ path: 'supportUrl', message: 'must be an https:// URL' }]);
    expect((await t.call('GET', `/api/dev/apps/${production.body.id}`, { token: key })).body.version).toBe(1);
  });
});

describe('oauthClientId', () => {
  test('an unregistered client is 400 UNKNOWN_OAUTH_CLIENT and nothing is created', async () => {
    const [before] = await t.sql('select count(*)::int as n from apps');
    const response = await t.call('POST', '/api/dev/apps', { token: key, body: completeApp({ oauthClientId: 'nobody-registered-this' }) });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('UNKNOWN_OAUTH_CLIENT');
    expect(response.body.errors[0].path).toBe('oauthClientId');
    const [after] = await t.sql('select count(*)::int as n from apps');
    expect(after.n).toBe(before.n);
  });

  test("another developer's client is refused the same way", async () => {
    const other = await registerDeveloper(t);
    await registerClient(t, other.email, 'other-developers-client');
    const response = await t.call('POST', '/api/dev/apps', { token: key, body: completeApp({ oauthClientId: 'other-developers-client' }) });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('UNKNOWN_OAUTH_CLIENT');
  });

  test('a client registered to the developer is accepted, on create and on PUT, and null clears it', async () => {
    await registerClient(t, dev.id, 'my-client-1');
    await registerClient(t, dev.email, 'my-client-2');
    const app = await createApp(t, key, completeApp({ oauthClientId: 'my-client-1' }));
    expect(app.oauthClientId).toBe('my-client-1');
    const changed = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { oauthClientId: 'my-client-2' } });
    expect(changed.body.oauthClientId).toBe('my-client-2');
    const refused = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { oauthClientId: 'other-developers-client' } });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('UNKNOWN_OAUTH_CLIENT');
    expect((await appRow(t, app.id)).oauth_client_id).toBe('my-client-2');
    const cleared = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { oauthClientId: null } });
    expect(cleared.body.oauthClientId).toBeNull();
  });

  test('registering a client id twice is 409 CONFLICT; an unknown developer is 404', async () => {
    expect(await refusal(registerClient(t, dev.id, 'my-client-1'))).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(await refusal(registerClient(t, 'nobody@example.com', 'fresh-client'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(await refusal(registerClient(t, dev.id, 'has space'))).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    const [row] = await t.sql('select developer_id from oauth_clients where client_id = ?', ['my-client-1']);
    expect(row.developer_id).toBe(dev.id);
    const audit = await t.sql(`select actor from audit_log where action = 'oauth-client.register' and subject_id = ?`, ['my-client-1']);
    expect(audit).toEqual([{ actor: 'cli' }]);
  });
});

describe('read and list', () => {
  test('GET one app; a malformed id is 400, an unknown one 404', async () => {
    const app = await createApp(t, key);
    const one = await t.call('GET', `/api/dev/apps/${app.id}`, { token: key });
    expect(one.status).toBe(200);
    // Asset checks run in the background and may have reported in between.
    expect({ ...one.body, assetChecks: [] }).toEqual({ ...app, assetChecks: [] });
    const malformed = await t.call('GET', '/api/dev/apps/not-a-uuid', { token: key });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('VALIDATION_FAILED');
    const unknown = await t.call('GET', `/api/dev/apps/${crypto.randomUUID()}`, { token: key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
  });

  test('the list is paged newest first with totals', async () => {
    const lister = await registerDeveloper(t);
    const listerKey = await mintKey(t, lister);
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await createApp(t, listerKey, minimalApp()));
    const first = await t.call('GET', '/api/dev/apps?limit=2', { token: listerKey });
    expect(first.status).toBe(200);
    expect(first.body.pagination).toEqual({ page: 1, limit: 2, total: 5, totalPages: 3 });
    expect(first.body.data.map((a: { id: string }) => a.id)).toEqual([created[4].id, created[3].id]);
    const last = await t.call('GET', '/api/dev/apps?page=3&limit=2', { token: listerKey });
    expect(last.body.data.map((a: { id: string }) => a.id)).toEqual([created[0].id]);
    const beyond = await t.call('GET', '/api/dev/apps?page=4&limit=2', { token: listerKey });
    expect(beyond.status).toBe(200);
    expect(beyond.body).toEqual({ data: [], pagination: { page: 4, limit: 2, total: 5, totalPages: 3 } });
    const defaults = await t.call('GET', '/api/dev/apps', { token: listerKey });
    expect(defaults.body.pagination).toEqual({ page: 1, limit: 20, total: 5, totalPages: 1 });
  });

  test.each([['limit=0'], ['limit=101'], ['page=0'], ['page=-1'], ['page=abc'], ['limit=1.5'], ['page=101&limit=100'], ['page=10001&limit=1']])(
    '?%s is 400 VALIDATION_FAILED',
    async (query) => {
      const response = await t.call('GET', `/api/dev/apps?${query}`, { token: key });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    },
  );

  test('page × limit of exactly 10,000 is allowed', async () => {
    const response = await t.call('GET', '/api/dev/apps?page=100&limit=100', { token: key });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
  });
});

describe('PUT', () => {
  test('omitted fields stay, null clears, every edit increments the version', async () => {
    const app = await createApp(
      t,
      key,
      completeApp({ websiteUrl: 'https://timer.example.com', supportUrl: 'https://timer.example.com/help', longDescription: 'Hello' }),
    );
    const first = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { description: 'New words.' } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      description: 'New words.',
      category: app.category,
      environment: app.environment,
      name: app.name,
      websiteUrl: 'https://timer.example.com',
      supportUrl: 'https://timer.example.com/help',
      longDescription: 'Hello',
      version: 2,
      status: 'DRAFT',
    });
    const second = await t.call('PUT', `/api/dev/apps/${app.id}`, {
      token: key,
      body: { websiteUrl: null, longDescription: null, category: 'BUSINESS' },
    });
    expect(second.body).toMatchObject({
      websiteUrl: null,
      longDescription: null,
      longDescriptionHtml: null,
      supportUrl: 'https://timer.example.com/help',
      category: 'BUSINESS',
      version: 3,
    });
    expect((await appRow(t, app.id)).version).toBe(3);
    // An omitted enum field is not filled in with a default either.
    const third = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { name: 'Renamed Timer' } });
    expect(third.body).toMatchObject({ category: 'BUSINESS', environment: 'production', version: 4 });
  });

  test('screenshots are replaced as a whole; a changed image enqueues asset checks, a text edit does not', async () => {
    const app = await createApp(t, key);
    // The creation's check is queued under the same singleton key; let it finish first.
    const before = await assetChecksSettled(t, app.id);
    const textOnly = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { description: 'Words only.' } });
    expect(textOnly.status).toBe(200);
    expect(await assetCheckJobs(t, app.id)).toHaveLength(before);
    const response = await t.call('PUT', `/api/dev/apps/${app.id}`, {
      token: key,
      body: { screenshots: [{ url: 'https://cdn.example.com/new.png', caption: 'New' }] },
    });
    expect(response.body.screenshots).toEqual([{ url: 'https://cdn.example.com/new.png', caption: 'New', order: 0 }]);
    expect(await assetCheckJobs(t, app.id)).toHaveLength(before + 1);
  });

  test.each([
    ['environment (fixed at creation)', { environment: 'staging' }],
    ['more than 6 screenshots', { screenshots: Array.from({ length: 7 }, (_, i) => ({ url: `https://cdn.example.com/${i}.png` })) }],
    ['a control character', { description: 'tab\there' }],
    ['a bad URL', { logoUrl: 'not a url' }],
    ['null for a required field', { name: null }],
    ['an unknown field', { status: 'APPROVED' }],
  ])('400 VALIDATION_FAILED for %s, and nothing changes', async (_what, body) => {
    const app = await createApp(t, key);
    const before = await appRow(t, app.id);
    const response = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(await appRow(t, app.id)).toEqual(before);
  });

  test('a PUT on an unknown app is 404', async () => {
    const response = await t.call('PUT', `/api/dev/apps/${crypto.randomUUID()}`, { token: key, body: { name: 'X' } });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('NOT_FOUND');
  });
});

describe('DELETE', () => {
  test('returns the deleted app; it is gone afterwards', async () => {
    const app = await createApp(t, key);
    const deleted = await t.call('DELETE', `/api/dev/apps/${app.id}`, { token: key });
    expect(deleted.status).toBe(200);
    expect(deleted.body.id).toBe(app.id);
    expect(deleted.body.slug).toBe(app.slug);
    expect(await appRow(t, app.id)).toBeUndefined();
    const again = await t.call('GET', `/api/dev/apps/${app.id}`, { token: key });
    expect(again.status).toBe(404);
    const twice = await t.call('DELETE', `/api/dev/apps/${app.id}`, { token: key });
    expect(twice.status).toBe(404);
  });
});

describe('slugs', () => {
  test('lowercase kebab from the name, accents stripped, unique with -2, -3', async () => {
    const a = await createApp(t, key, minimalApp({ name: '  Zoë’s  Ünïcode -- App!! ' }));
    expect(a.slug).toBe('zoe-s-unicode-app');
    const b = await createApp(t, key, minimalApp({ name: 'Zoe s Unicode App' }));
    expect(b.slug).toBe('zoe-s-unicode-app-2');
    const c = await createApp(t, key, minimalApp({ name: 'ZOE-S UNICODE APP' }));
    expect(c.slug).toBe('zoe-s-unicode-app-3');
  });

  test('a name with no letters or digits falls back to "app"; long names are cut to 60', async () => {
    const symbols = await createApp(t, key, minimalApp({ name: '!!! ???' }));
    expect(symbols.slug).toMatch(/^app(-\d+)?$/);
    const long = await createApp(t, key, minimalApp({ name: 'word '.repeat(16).trim() }));
    expect(long.slug.length).toBeLessThanOrEqual(60);
    expect(long.slug.endsWith('-')).toBe(false);
    const longAgain = await createApp(t, key, minimalApp({ name: 'word '.repeat(16).trim() }));
    expect(longAgain.slug.length).toBeLessThanOrEqual(60);
    expect(longAgain.slug.endsWith('-2')).toBe(true);
  });

  test('concurrent creations with one name get distinct slugs', async () => {
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => t.call('POST', '/api/dev/apps', { token: key, body: minimalApp({ name: 'Race Condition' }) })),
    );
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(responses.map((r) => r.body.slug).sort()).toEqual([
      'race-condition',
      'race-condition-2',
      'race-condition-3',
      'race-condition-4',
      'race-condition-5',
    ]);
  });

  test('"featured" and "categories" are never handed out', async () => {
    const featured = await createApp(t, key, minimalApp({ name: 'Featured' }));
    expect(featured.slug).toBe('featured-2');
    const categories = await createApp(t, key, minimalApp({ name: 'Categories' }));
    expect(categories.slug).toBe('categories-2');
  });

  test("a deleted draft's slug is released: it was never public, so nobody can hold it by creating and deleting", async () => {
    const first = await createApp(t, key, minimalApp({ name: 'Ephemeral Tool' }));
    expect(first.slug).toBe('ephemeral-tool');
    await t.call('DELETE', `/api/dev/apps/${first.id}`, { token: key });
    expect(await t.sql('select slug from app_slugs where slug = ?', ['ephemeral-tool'])).toEqual([]);
    const second = await createApp(t, key, minimalApp({ name: 'Ephemeral Tool' }));
    expect(second.slug).toBe('ephemeral-tool');
  });

  test('renaming a draft through popular names reserves none of them; only its current slug is held', async () => {
    const app = await createApp(t, key, minimalApp({ name: 'Old Name' }));
    expect(app.slug).toBe('old-name');
    for (const name of ['Zoom', 'Slack', 'Notion']) {
      await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { name } });
    }
    const renamed = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { name: 'New Name' } });
    expect(renamed.body.slug).toBe('new-name');
    expect(await t.sql('select slug from app_slugs where app_id = ?', [app.id])).toEqual([{ slug: 'new-name' }]);
    for (const name of ['Zoom', 'Slack', 'Notion', 'Old Name']) {
      expect((await createApp(t, key, minimalApp({ name }))).slug).toBe(name.toLowerCase().replace(' ', '-'));
    }
    // A rename that does not change the slug's words keeps the slug.
    const cosmetic = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { name: 'NEW name!' } });
    expect(cosmetic.body.slug).toBe('new-name');
  });

  test('a slug that was ever public stays reserved: an approved app keeps it, and no other app can take it', async () => {
    const app = await createApp(t, key, completeApp({ name: 'Public Once' }));
    await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
    await decideApp(deps(t), app.id, 'approve', { actor: CLI_ACTOR });
    await decideApp(deps(t), app.id, 'suspend', { actor: CLI_ACTOR });
    const other = await createApp(t, key, minimalApp({ name: 'Public Once' }));
    expect(other.slug).toBe('public-once-2');
    expect(await t.sql('select app_id from app_slugs where slug = ?', ['public-once'])).toEqual([{ app_id: app.id }]);
  });
});

describe('Markdown', () => {
  test('rendered and sanitised: no raw HTML, no javascript: links, links get rel, images become text', async () => {
    const app = await createApp(
      t,
      key,
      minimalApp({
        longDescription: [
          '# Title',
          '',
          '**Bold** and _em_ <script>alert(1)</script> <img src=x onerror=alert(1)>',
          '',
          '[bad](javascript:alert(1)) [ok](https://docs.example.com) [mail](mailto:help@example.com) [data](data:text/html,hi)',
          '',
          '![tracking pixel](https://tracker.example.com/p.gif)',
          '',
          'Autolinked: https://auto.example.com',
          '',
          '- one',
          '- two',
        ].join('\n'),
      }),
    );
    const html: string = app.longDescriptionHtml;
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<strong>Bold</strong>');
    expect(html).toContain('<li>one</li>');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).not.toMatch(/href="data:/i);
    expect(html).toContain('<a href="https://docs.example.com" rel="nofollow noopener noreferrer">ok</a>');
    expect(html).toContain('<a href="mailto:help@example.com" rel="nofollow noopener noreferrer">mail</a>');
    expect(html).toContain('<a href="https://auto.example.com" rel="nofollow noopener noreferrer">');
    expect(html).toContain('tracking pixel');
    const stored = await appRow(t, app.id);
    expect(stored.long_description_html).toBe(html);
  });

  test('re-rendered on every write', async () => {
    const app = await createApp(t, key, minimalApp({ longDescription: 'first' }));
    const updated = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { longDescription: '*second*' } });
    expect(updated.body.longDescriptionHtml).toBe('<p><em>second</em></p>\n');
  });
});
