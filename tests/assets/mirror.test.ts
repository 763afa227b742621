import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { decideRevision } from '../../src/modules/apps/revisions.service.ts';
import { collectUnreferencedAssets } from '../../src/modules/assets/asset-gc.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { assetChecksSettled, deps } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { createTestApp, listen, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { launchBrowser } from '../console/browser.ts';
import { image, startImageServer, type ImageServer } from './image-server.ts';
import { createAdminAccount, signedIn } from '../console/support.ts';
import { jpeg, mirrorOf, png, pngDeclaring, sha256 } from './images.ts';

/**
 * The mirror end to end: images served from 127.0.0.1 (ALLOW_PRIVATE_FETCH, tests only), checked
 * and stored by the worker, published on approval, and served from `/assets/<sha256>.<ext>`.
 */
let t: TestApp;
let server: ImageServer;
let key: string;

const LOGO = png(512, 512);
const BANNER = jpeg(1200, 600);
const SHOT = png(1280, 720);
const SHOT_JPEG = jpeg(1920, 1080);
/** What the origin serves at `/live/logo.png` right now: tests change it under a listing. */
let liveLogo = LOGO;
/** What the origin serves at `/swap/logo.png`: changed behind the same URL by the stale-decision tests. */
let swapLogo = png(530, 530);
/** `/swap/logo.png` answers once this is open, so the reviewer sees a submission before its logo is stored. */
const swapGate = Promise.withResolvers<void>();
/** A 5 KB PNG declaring 50,000 × 50,000 pixels (2.5 gigapixels). */
const BOMB = pngDeclaring(50_000, 50_000);
/** `/gated/*.png` answers once the current gate is opened, so a test can look before a copy is stored. */
let gate = Promise.withResolvers<void>();
/** `/slow.png` answers once this is released. */
let releaseSlow!: () => void;
const slow = new Promise<void>((resolve) => (releaseSlow = resolve));

beforeAll(async () => {
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true' });
  server = startImageServer({
    '/live/logo.png': () => new Response(liveLogo, { headers: { 'content-type': 'image/png' } }),
    '/logo.png': image(LOGO, 'image/png'),
    '/logo-2.png': image(png(640, 640), 'image/png'),
    '/banner.jpg': image(BANNER, 'image/jpeg'),
    '/shot.png': image(SHOT, 'image/png'),
    '/shot.jpg': image(SHOT_JPEG, 'image/jpeg'),
    '/shot-3.png': image(png(1440, 900), 'image/png'),
    '/gc.png': image(png(700, 700), 'image/png'),
    '/swap/logo.png': async () => {
      await swapGate.promise;
      return new Response(swapLogo, { headers: { 'content-type': 'image/png' } });
    },
    '/bomb.png': image(BOMB, 'image/png'),
    '/draft-logo.png': image(png(520, 520), 'image/png'),
    '/gated/rev-logo.png': async () => {
      await gate.promise;
      return new Response(png(560, 560), { headers: { 'content-type': 'image/png' } });
    },
    '/missing.png': () => new Response('gone', { status: 404 }),
    // A real PNG header, then 1.5 MiB: readable dimensions, past the logo's 1 MiB cap.
    '/big-logo.png': () => new Response(new Blob([png(600, 600), new Uint8Array(1.5 * 1024 * 1024)]), { headers: { 'content-type': 'image/png' } }),
    '/slow.png': async () => {
      await slow;
      return new Response(SHOT, { headers: { 'content-type': 'image/png' } });
    },
  });
  key = await mintKey(t, await registerDeveloper(t));
}, 30_000);

afterAll(async () => {
  releaseSlow();
  gate.resolve();
  await server.stop();
  await t.close();
});

const url = (path: string) => `${server.origin}${path}`;

let listings = 0;
/** A submittable listing of local images (staging apps may use http URLs). */
const listing = (images: { logo?: string; banner?: string; shots?: string[] }) => ({
  name: `Mirror App ${++listings}`,
  description: 'Shows its images.',
  category: 'PRODUCTIVITY',
  environment: 'staging',
  logoUrl: url(images.logo ?? '/logo.png'),
  ...(images.banner ? { bannerUrl: url(images.banner) } : {}),
  screenshots: (images.shots ?? ['/shot.png', '/shot.jpg']).map((path) => ({ url: url(path) })),
});

const ownerView = async (id: string) => (await t.call('GET', `/api/dev/apps/${id}`, { token: key })).body;

/** Waits until every image the owner's listing names has a check (the job finished). */
const checked = (id: string) =>
  eventually(async () => {
    const view = await ownerView(id);
    const listed = (view.logoUrl ? 1 : 0) + (view.bannerUrl ? 1 : 0) + view.screenshots.length;
    return view.assetChecks.length === listed ? view : null;
  });

async function submitted(body: object) {
  const created = await t.call('POST', '/api/dev/apps', { token: key, body });
  expect(created.status).toBe(201);
  const response = await t.call('POST', `/api/dev/apps/${created.body.id}/submit`, { token: key });
  expect(response.status).toBe(200);
  return response.body as { id: string; slug: string; version: number };
}

const approve = (app: { id: string }, version: number) => decideApp(deps(t), app.id, 'approve', { actor: CLI_ACTOR, version });
const publicView = async (slug: string) => (await t.call('GET', `/api/apps/${slug}`)).body;
const checkOf = (view: { assetChecks: { field: string }[] }, field: string) => view.assetChecks.find((check) => check.field === field) as any;

describe('the reviewer looks at the stored copies', () => {
  test('review pages show only the console\'s stored copies; an image nobody stored is "not stored", never loaded from the developer\'s host', async () => {
    const app = await submitted(listing({ logo: '/logo.png', shots: ['/shot.png', '/missing.png'] }));
    await checked(app.id);
    const reviewer = await signedIn(t, await createAdminAccount(t, 'reviewer'));
    for (const path of [`/admin/review/apps/${app.id}`, `/admin/apps/${app.id}`]) {
      const page = await reviewer.get(path);
      expect(page.status).toBe(200);
      const sources = [...page.text.matchAll(/<img\b[^>]*\bsrc="([^"]*)"/g)].map((match) => match[1]);
      // Logo and the stored screenshot, each from the console's own (signed-in) route to the mirror.
      expect(sources.sort()).toEqual([`/admin/mirror/${sha256(LOGO)}.png`, `/admin/mirror/${sha256(SHOT)}.png`].sort());
      expect(page.text.match(/Not stored/g)).toHaveLength(1);
      expect(page.text).not.toContain(`src="${server.origin}`);
      // And the browser would refuse any other host anyway.
      expect(page.headers.get('content-security-policy')).toContain("img-src 'self' data:;");
    }
  });
});

describe('the reviewer looks at the stored copies, in a browser', () => {
  test("opening a review page asks the developer's server for nothing; the stored copies load from the console", async () => {
    const app = await submitted(listing({ logo: '/logo.png', shots: ['/shot.png', '/missing.png'] }));
    await checked(app.id);
    const reviewer = await signedIn(t, await createAdminAccount(t, 'reviewer'));
    const served = listen(t);
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext({ viewport: { width: 1400, height: 4000 } });
      await context.addCookies([...reviewer.cookies].map(([name, value]) => ({ name, value, url: served.baseUrl })));
      const page = await context.newPage();
      const requested: string[] = [];
      page.on('request', (request) => void requested.push(request.url()));
      const hitsBefore = server.hits.length;
      await page.goto(`${served.baseUrl}/admin/review/apps/${app.id}`, { waitUntil: 'load' });
      // In the page (strings: the test's own types have no DOM): every image settled, then each one's decoded width.
      // Asked from here: the images load lazily, after `load`, and `waitForFunction` polls a string with
      // `eval`, which the console's CSP refuses in the page.
      await eventually(() => page.evaluate<boolean>('[...document.images].every((image) => image.complete)'));
      const widths = await page.evaluate<number[]>('[...document.images].map((image) => image.naturalWidth)');
      expect(widths).toEqual([512, 1280]);
      expect(requested.filter((address) => !address.startsWith(served.baseUrl))).toEqual([]);
      expect(server.hits.slice(hitsBefore)).toEqual([]);
    } finally {
      await browser.close();
      await served.stop();
    }
  }, 60_000);
});

describe('stale decisions and new copies', () => {
  test('a copy stored after the reviewer looked, or a changed image behind the same URL, moves the version a decision must name', async () => {
    swapLogo = png(530, 530);
    const app = await submitted(listing({ logo: '/swap/logo.png' }));
    // The reviewer opened the submission before its images were stored (the origin answers only now,
    // so no check, not even the one creating the app began, could store it earlier): that page decides nothing.
    swapGate.resolve();
    const first = await checked(app.id);
    expect(checkOf(first, 'logoUrl').mirrorUrl).toBe(mirrorOf(swapLogo, 'png'));
    expect(first.version).toBeGreaterThan(app.version);
    expect(await decideApp(deps(t), app.id, 'approve', { actor: CLI_ACTOR, version: app.version }).catch((error) => error.code)).toBe(
      'STALE_VERSION',
    );
    await decideApp(deps(t), app.id, 'reject', { actor: CLI_ACTOR, version: first.version, reason: 'The logo is off.' });

    // The origin serves another logo behind the same URL, and the developer resubmits without an edit.
    const changed = png(540, 540);
    swapLogo = changed;
    const resubmitted = await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
    expect(resubmitted.body.version).toBeGreaterThan(first.version);
    const second = await eventually(async () => {
      const view = await checked(app.id);
      return checkOf(view, 'logoUrl').mirrorUrl === mirrorOf(changed, 'png') ? view : null;
    });
    expect(second.version).toBeGreaterThan(resubmitted.body.version);
    for (const seen of [first.version, resubmitted.body.version]) {
      expect(await decideApp(deps(t), app.id, 'approve', { actor: CLI_ACTOR, version: seen }).catch((error) => error.code)).toBe('STALE_VERSION');
    }
    expect((await ownerView(app.id)).status).toBe('PENDING');
    await approve(app, second.version);
    expect((await publicView(app.slug)).logoUrl).toBe(mirrorOf(changed, 'png'));
  });

  test("a revision's image stored after the reviewer looked moves the revision's version", async () => {
    const app = await submitted(listing({}));
    await approve(app, (await checked(app.id)).version);
    gate = Promise.withResolvers<void>();
    const proposed = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { logoUrl: url('/gated/rev-logo.png') } });
    expect(proposed.status).toBe(201);
    const seen = proposed.body.pendingRevision.version;
    gate.resolve();
    const stored = await eventually(async () => {
      const view = await ownerView(app.id);
      return checkOf(view.pendingRevision, 'logoUrl')?.mirrorUrl ? view : null;
    });
    expect(stored.pendingRevision.version).toBe(seen + 1);
    expect(await decideRevision(deps(t), app.id, 'approve', { actor: CLI_ACTOR, version: seen }).catch((error) => error.code)).toBe('STALE_VERSION');
    expect((await publicView(app.slug)).logoUrl).toBe(mirrorOf(LOGO, 'png'));
    await decideRevision(deps(t), app.id, 'approve', { actor: CLI_ACTOR, version: seen + 1 });
    expect((await publicView(app.slug)).logoUrl).toBe(mirrorOf(png(560, 560), 'png'));
  });
});

describe('decompression bombs', () => {
  test('an image past 40 megapixels is a problem the owner and the reviewer see, and is never mirrored', async () => {
    expect(BOMB.byteLength).toBeLessThan(10_000);
    const app = await submitted(listing({ logo: '/bomb.png' }));
    const view = await checked(app.id);
    expect(checkOf(view, 'logoUrl')).toMatchObject({
      ok: false,
      format: 'png',
      width: 50_000,
      height: 50_000,
      mirrorUrl: null,
      problems: ['image must be at most 40 megapixels (got 50000x50000; not mirrored)'],
    });
    expect(await t.sql('select 1 from assets where sha256 = ?', [sha256(BOMB)])).toEqual([]);
    const reviewer = await signedIn(t, await createAdminAccount(t, 'reviewer'));
    const page = (await reviewer.get(`/admin/review/apps/${app.id}`)).text;
    expect(page).toContain('image must be at most 40 megapixels (got 50000x50000; not mirrored)');
    expect(page).toContain('Not stored');
    // Approval publishes no copy of it.
    await approve(app, view.version);
    expect((await publicView(app.slug)).logoUrl).toBe(url('/bomb.png'));
  });
});

describe('who may read a stored copy', () => {
  test("a draft's copy is not public; its owner and admins read it through their own routes; approval makes it public", async () => {
    const DRAFT_LOGO = png(520, 520);
    const copy = `${sha256(DRAFT_LOGO)}.png`;
    const created = await t.call('POST', '/api/dev/apps', { token: key, body: listing({ logo: '/draft-logo.png' }) });
    const app = created.body as { id: string; slug: string };
    await checked(app.id);
    expect(checkOf(await ownerView(app.id), 'logoUrl').mirrorUrl).toBe(`http://localhost:3000/assets/${copy}`);

    const publicly = await t.call('GET', `/assets/${copy}`);
    expect(publicly.status).toBe(404);
    expect(publicly.headers.get('content-type')).toBe('application/problem+json');

    // The owner, with a key that reads apps.
    const owned = await t.app.handle(
      new Request(`http://localhost/api/dev/apps/${app.id}/assets/${copy}`, { headers: { authorization: `Bearer ${key}` } }),
    );
    expect(owned.status).toBe(200);
    expect(Buffer.from(await owned.arrayBuffer()).equals(Buffer.from(DRAFT_LOGO))).toBe(true);
    expect(owned.headers.get('content-type')).toBe('image/png');
    expect(owned.headers.get('cache-control')).toBe('no-store');
    // Another developer, another app's copy, no key: 404 or 401, never the bytes.
    const otherKey = await mintKey(t, await registerDeveloper(t));
    expect((await t.call('GET', `/api/dev/apps/${app.id}/assets/${copy}`, { token: otherKey })).status).toBe(404);
    expect((await t.call('GET', `/api/dev/apps/${app.id}/assets/${sha256(LOGO)}.png`, { token: key })).status).toBe(404);
    expect((await t.call('GET', `/api/dev/apps/${app.id}/assets/${copy}`)).status).toBe(401);

    // Admins, signed in to the console.
    const reviewer = await signedIn(t, await createAdminAccount(t, 'reviewer'));
    const seen = await reviewer.get(`/admin/mirror/${copy}`);
    expect(seen.status).toBe(200);
    expect(seen.headers.get('content-type')).toBe('image/png');
    expect((await reviewer.get(`/admin/mirror/${'0'.repeat(64)}.png`)).status).toBe(404);
    const anonymous = await t.app.handle(new Request(`http://localhost/admin/mirror/${copy}`, { redirect: 'manual' }));
    expect(anonymous.status).toBe(303);

    // Approved, the copy is what the public listing shows; suspended, it is not public any more.
    const pending = await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
    const reviewed = await eventually(async () => {
      const view = await checked(app.id);
      return view.version >= pending.body.version && checkOf(view, 'logoUrl').mirrorUrl ? view : null;
    });
    await approve(app, reviewed.version);
    expect((await publicView(app.slug)).logoUrl).toBe(`http://localhost:3000/assets/${copy}`);
    expect((await t.call('GET', `/assets/${copy}`)).status).toBe(200);
    await decideApp(deps(t), app.id, 'suspend', { actor: CLI_ACTOR });
    expect((await t.call('GET', `/assets/${copy}`)).status).toBe(404);
  });
});

describe('approval publishes the mirrored copies the reviewer saw', () => {
  test('the public listing serves the checked bytes, with immutable caching, whatever the origin does later', async () => {
    liveLogo = LOGO;
    const app = await submitted(listing({ logo: '/live/logo.png', banner: '/banner.jpg' }));
    const reviewed = await checked(app.id);
    expect(reviewed.assetChecks.map((check: { mirrorUrl: string }) => check.mirrorUrl).sort()).toEqual(
      [mirrorOf(LOGO, 'png'), mirrorOf(BANNER, 'jpg'), mirrorOf(SHOT, 'png'), mirrorOf(SHOT_JPEG, 'jpg')].sort(),
    );
    await approve(app, reviewed.version);

    const shown = await publicView(app.slug);
    expect(shown.logoUrl).toBe(mirrorOf(LOGO, 'png'));
    expect(shown.bannerUrl).toBe(mirrorOf(BANNER, 'jpg'));
    expect(shown.screenshots.map((shot: { url: string }) => shot.url)).toEqual([mirrorOf(SHOT, 'png'), mirrorOf(SHOT_JPEG, 'jpg')]);
    // The catalogue list shows the same.
    const listed = (await t.call('GET', '/api/apps?limit=100&sort=newest')).body.data.find((entry: { id: string }) => entry.id === app.id);
    expect(listed.logoUrl).toBe(mirrorOf(LOGO, 'png'));

    // The developer's host changes the image: nothing the public sees changes.
    liveLogo = png(1024, 1024);
    expect((await publicView(app.slug)).logoUrl).toBe(mirrorOf(LOGO, 'png'));
    const served = await t.app.handle(new Request(mirrorOf(LOGO, 'png')));
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(LOGO))).toBe(true);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('etag')).toBe(`"${sha256(LOGO)}"`);

    const jpegServed = await t.app.handle(new Request(mirrorOf(BANNER, 'jpg')));
    expect(jpegServed.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await jpegServed.arrayBuffer()).equals(Buffer.from(BANNER))).toBe(true);

    const revalidated = await t.app.handle(new Request(mirrorOf(LOGO, 'png'), { headers: { 'if-none-match': `"${sha256(LOGO)}"` } }));
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe('');
  });

  test('an image that could not be fetched keeps its own URL, and the owner and reviewer see why', async () => {
    const app = await submitted(listing({ logo: '/missing.png' }));
    const reviewed = await checked(app.id);
    expect(checkOf(reviewed, 'logoUrl')).toMatchObject({ ok: false, mirrorUrl: null, problems: ['could not fetch: bad status 404'] });
    await approve(app, reviewed.version);
    const shown = await publicView(app.slug);
    expect(shown.logoUrl).toBe(url('/missing.png'));
    expect(shown.screenshots.map((shot: { url: string }) => shot.url)).toEqual([mirrorOf(SHOT, 'png'), mirrorOf(SHOT_JPEG, 'jpg')]);
  });

  test('an image over its size cap is checked from its first bytes but not mirrored', async () => {
    const app = await submitted(listing({ logo: '/big-logo.png' }));
    const check = checkOf(await checked(app.id), 'logoUrl');
    expect(check).toMatchObject({
      ok: false,
      format: 'png',
      width: 600,
      height: 600,
      mirrorUrl: null,
      problems: ['logo must be at most 1 MiB (not mirrored)'],
    });
  });

  test('an image whose check had not finished at approval keeps its own URL, also once the check is done', async () => {
    const app = await submitted(listing({ shots: ['/shot.png', '/slow.png'] }));
    expect((await ownerView(app.id)).assetChecks).toEqual([]);
    await approve(app, app.version);
    releaseSlow();
    const reviewedLate = await checked(app.id);
    expect(checkOf(reviewedLate, 'screenshots[1]').mirrorUrl).toBe(mirrorOf(SHOT, 'png'));
    // Nobody reviewed those copies: the listing shows what the reviewer had, the developer's URLs.
    const shown = await publicView(app.slug);
    expect(shown.logoUrl).toBe(url('/logo.png'));
    expect(shown.screenshots.map((shot: { url: string }) => shot.url)).toEqual([url('/shot.png'), url('/slow.png')]);
  });

  test('while an app waits for review its stored copies are pinned; a resubmission fetches them again', async () => {
    liveLogo = LOGO;
    const app = await submitted(listing({ logo: '/live/logo.png' }));
    const first = await checked(app.id);
    expect(checkOf(first, 'logoUrl').mirrorUrl).toBe(mirrorOf(LOGO, 'png'));

    // The origin changes the logo, and the developer edits another image of the pending listing.
    const changedLogo = png(800, 800);
    liveLogo = changedLogo;
    const edited = await t.call('PUT', `/api/dev/apps/${app.id}`, {
      token: key,
      body: { screenshots: [{ url: url('/shot.png') }, { url: url('/shot-3.png') }] },
    });
    expect(edited.status).toBe(200);
    const second = await eventually(async () => {
      const view = await ownerView(app.id);
      return checkOf(view, 'screenshots[1]')?.url === url('/shot-3.png') ? view : null;
    });
    // The logo the reviewer is looking at is the one stored before, not what the origin serves now.
    expect(checkOf(second, 'logoUrl').mirrorUrl).toBe(mirrorOf(LOGO, 'png'));

    // The decision on the version before the edit is stale; on the current one it publishes the pinned copy.
    expect(await decideApp(deps(t), app.id, 'approve', { actor: CLI_ACTOR, version: app.version }).catch((error) => error.code)).toBe(
      'STALE_VERSION',
    );
    // Every check of the edit has finished (a newly stored copy moves the version too): decide on what is there now.
    await assetChecksSettled(t, app.id);
    const settled = await ownerView(app.id);
    await decideApp(deps(t), app.id, 'reject', { actor: CLI_ACTOR, version: settled.version, reason: 'The logo is too plain.' });

    // Resubmitting asks for a fresh look: the new logo is fetched and becomes what a reviewer sees.
    expect((await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key })).status).toBe(200);
    const third = await eventually(async () => {
      const view = await checked(app.id);
      return checkOf(view, 'logoUrl').mirrorUrl === mirrorOf(changedLogo, 'png') ? view : null;
    });
    await approve(app, third.version);
    expect((await publicView(app.slug)).logoUrl).toBe(mirrorOf(changedLogo, 'png'));
  });
});

describe('revisions', () => {
  test("a revision's images are checked before review, and its approval publishes them", async () => {
    const app = await submitted(listing({}));
    const reviewed = await checked(app.id);
    await approve(app, reviewed.version);
    const proposed = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { logoUrl: url('/logo-2.png') } });
    expect(proposed.status).toBe(201);

    const pending = await eventually(async () => {
      const view = await ownerView(app.id);
      return view.pendingRevision?.assetChecks.length === 3 ? view : null;
    });
    const newLogo = checkOf(pending.pendingRevision, 'logoUrl');
    expect(newLogo).toMatchObject({ url: url('/logo-2.png'), ok: true, width: 640, mirrorUrl: mirrorOf(png(640, 640), 'png') });
    // The live listing, its checks and its public images are untouched until the decision.
    expect(checkOf(pending, 'logoUrl')).toMatchObject({ url: url('/logo.png'), mirrorUrl: mirrorOf(LOGO, 'png') });
    expect((await publicView(app.slug)).logoUrl).toBe(mirrorOf(LOGO, 'png'));

    await decideRevision(deps(t), app.id, 'approve', { actor: CLI_ACTOR });
    const shown = await publicView(app.slug);
    expect(shown.logoUrl).toBe(mirrorOf(png(640, 640), 'png'));
    expect(shown.screenshots.map((shot: { url: string }) => shot.url)).toEqual([mirrorOf(SHOT, 'png'), mirrorOf(SHOT_JPEG, 'jpg')]);
    // The check that follows the approval drops the old logo's row.
    await eventually(async () => (await t.sql('select url from asset_checks where app_id = ? and field = ?', [app.id, 'logoUrl'])).length === 1);
  });
});

describe('/assets', () => {
  test('unknown, mistyped and malformed names are 404 problems', async () => {
    const stored = sha256(LOGO);
    for (const path of [
      `/assets/${'0'.repeat(64)}.png`,
      `/assets/${stored}.jpg`,
      `/assets/${stored}`,
      '/assets/logo.png',
      `/assets/${stored.toUpperCase()}.png`,
    ]) {
      const response = await t.call('GET', path);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
  });

  test('copies nothing refers to are collected after the grace period; referred ones never', async () => {
    const draft = await t.call('POST', '/api/dev/apps', { token: key, body: listing({ logo: '/gc.png' }) });
    const gcCopy = mirrorOf(png(700, 700), 'png');
    await eventually(async () => checkOf(await ownerView(draft.body.id), 'logoUrl')?.mirrorUrl === gcCopy);
    expect((await t.call('DELETE', `/api/dev/apps/${draft.body.id}`, { token: key })).status).toBe(200);

    // Within the grace period nothing goes.
    const gcStored = () => t.sql('select 1 from assets where sha256 = ?', [sha256(png(700, 700))]);
    expect(await collectUnreferencedAssets(t.ctx.orm.em.fork(), 3_600)).toBe(0);
    expect(await gcStored()).toHaveLength(1);

    // Past it, only the unreferenced copy goes: the published and checked ones stay.
    await t.sql(`update assets set stored_at = now() - interval '2 hours'`);
    expect(await collectUnreferencedAssets(t.ctx.orm.em.fork(), 3_600)).toBeGreaterThanOrEqual(1);
    expect(await gcStored()).toHaveLength(0);
    expect((await t.call('GET', mirrorOf(LOGO, 'png'))).status).toBe(200);
    const unreferenced = await t.sql(
      `select count(*)::int as n from assets s
       where not exists (select 1 from asset_checks c where c.sha256 = s.sha256)
         and not exists (select 1 from published_assets p where p.sha256 = s.sha256)`,
    );
    expect(unreferenced).toEqual([{ n: 0 }]);
  });
});
