import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { approvedApp, completeApp, createApp, deps } from '../apps/fixtures.ts';
import { ConsoleClient, createAdminAccount } from '../console/support.ts';
import { CAPABILITIES, type Capability } from '../../src/modules/admin-accounts/capabilities.ts';
import { ADMIN_ROLES, type AdminRole } from '../../src/modules/admin-accounts/admin.entity.ts';
import { hashSessionToken, openSession } from '../../src/modules/admin-sign-in/sessions.service.ts';
import { currentTotpCode, newTotpSecret } from '../../src/modules/admin-sign-in/totp.ts';
import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { transitionDeveloper } from '../../src/modules/developers/developers.service.ts';
import { setReviewHidden } from '../../src/modules/reviews/reviews.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { sendNotification } from '../../jobs/mail.ts';
import { databaseFingerprint, openFingerprintReader } from './fingerprint.ts';

/**
 * Every console route (`/admin/*`, read from the app's route table) against every way of not
 * being allowed: no session, an expired, idle or half-signed-in one, each role below the one the
 * route needs, and for state-changing requests a missing, wrong or cross-site CSRF token. Pages
 * answer 303 to the sign-in, everything else 403, and the whole database is unchanged. What each
 * route needs is declared once, in ROUTES (the capability names of `capabilities.ts`); a route
 * missing from it fails the suite. Each state-changing route gets a fresh target and a valid form,
 * and after the refusals the least role that holds the capability sends the same form and it works.
 */

interface Target {
  params?: Record<string, string>;
  form?: Record<string, string>;
}

type ConsoleRouteSpec =
  | {
      capability: Capability;
      target?: () => Promise<Target>;
      /** What the allowed request gets: pages 200, actions 303 back with a flash saying it worked. */
      ok?: number;
    }
  /** Before a session exists (the sign-in and static assets): refusals of their own, listed per case. */
  | { public: Partial<Record<PublicCase, { status: number; location?: string }>> };

type PublicCase = 'no session' | 'expired session' | 'missing CSRF token' | 'wrong CSRF token';

let t: TestApp;
let ownerKey: string;
const sessions: Record<string, { token: string; csrf: string }> = {};

const newDeveloper = async (state: 'pending' | 'verified' | 'suspended') => {
  const developer = await registerDeveloper(t, { verified: state !== 'pending' });
  if (state === 'suspended') await transitionDeveloper(deps(t), developer.id, 'suspend', CLI_ACTOR);
  return developer;
};
const pendingApp = async () => {
  const app = await createApp(t, ownerKey, completeApp());
  const submitted = await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: ownerKey });
  return { id: app.id as string, version: String(submitted.body.version) };
};
const liveApp = async () => (await approvedApp(t, ownerKey, completeApp())) as { id: string; slug: string; version: number };
const revisedApp = async () => {
  const app = await liveApp();
  const revision = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: ownerKey, body: { description: 'Proposed change.' } });
  return { id: app.id, version: String(revision.body.pendingRevision.version) };
};
const review = async () => {
  const app = await liveApp();
  const user = await t.token(`console-user-${crypto.randomUUID()}`);
  await t.call('POST', `/api/apps/${app.slug}/install`, { token: user, body: {} });
  return (await t.call('POST', `/api/apps/${app.slug}/reviews`, { token: user, body: { rating: 3 } })).body.id as string;
};
const newTeam = async (suspended: boolean) => {
  const developer = await newDeveloper('verified');
  const team = await t.call('POST', '/api/dev/teams', {
    token: developer.oauthToken,
    body: { name: `Console team ${crypto.randomUUID().slice(0, 6)}` },
  });
  if (suspended) await t.sql('update teams set suspended_at = now() where id = ?', [team.body.id]);
  return team.body.id as string;
};
/** A stored copy of an image (any admin may look at any copy): its file name. */
const storedCopy = async () => {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const sha256 = new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
  await t.sql(`insert into assets (sha256, extension, content_type, byte_size, bytes) values (?, 'png', 'image/png', 32, ?)`, [
    sha256,
    Buffer.from(bytes),
  ]);
  return `${sha256}.png`;
};
const otherAdmin = async () => (await createAdminAccount(t, 'reviewer')).id;
const outboxMessage = async () => {
  const developer = await newDeveloper('verified');
  const messageId = `developer-verified:${developer.id}:console`;
  await sendNotification(t.ctx, { messageId, kind: 'developer-verified', developerId: developer.id });
  return messageId;
};

const ROUTES: Record<string, ConsoleRouteSpec> = {
  'GET /admin/assets/*': { public: { 'no session': { status: 200 }, 'expired session': { status: 200 } } },
  'GET /admin/login': { public: { 'no session': { status: 200 }, 'expired session': { status: 200 } } },
  'POST /admin/login': { public: { 'no session': { status: 403 }, 'missing CSRF token': { status: 403 }, 'wrong CSRF token': { status: 403 } } },
  'GET /admin/login/code': {
    public: { 'no session': { status: 303, location: '/admin/login' }, 'expired session': { status: 303, location: '/admin/login' } },
  },
  'POST /admin/login/code': {
    public: {
      'no session': { status: 303, location: '/admin/login' },
      'expired session': { status: 303, location: '/admin/login' },
      'missing CSRF token': { status: 403 },
      'wrong CSRF token': { status: 403 },
    },
  },
  'GET /admin/login/enrol': {
    public: { 'no session': { status: 303, location: '/admin/login' }, 'expired session': { status: 303, location: '/admin/login' } },
  },
  'POST /admin/login/enrol': {
    public: { 'no session': { status: 303, location: '/admin/login' }, 'expired session': { status: 303, location: '/admin/login' } },
  },
  'POST /admin/logout': {
    public: { 'no session': { status: 303, location: '/admin/login' }, 'missing CSRF token': { status: 403 }, 'wrong CSRF token': { status: 403 } },
  },
  'GET /admin/account': { capability: 'view' },
  'POST /admin/account/totp/start': { capability: 'view' },
  'POST /admin/account/totp/confirm': {
    capability: 'view',
    async target() {
      const secret = newTotpSecret();
      await t.sql('update admin_sessions set pending_totp_secret = ? where token_hash = ?', [secret, hashSessionToken(sessions.reviewer!.token)]);
      return { form: { code: currentTotpCode(secret) } };
    },
  },
  'GET /admin': { capability: 'view' },
  'GET /admin/developers': { capability: 'view' },
  'GET /admin/developers/:id': { capability: 'view', target: async () => ({ params: { id: (await newDeveloper('pending')).id } }) },
  'POST /admin/developers/:id/verify': {
    capability: 'developers.verify',
    target: async () => ({ params: { id: (await newDeveloper('pending')).id } }),
  },
  'POST /admin/developers/:id/suspend': {
    capability: 'developers.suspend',
    target: async () => ({ params: { id: (await newDeveloper('verified')).id }, form: { confirmed: 'yes' } }),
  },
  'POST /admin/developers/:id/reinstate': {
    capability: 'developers.suspend',
    target: async () => ({ params: { id: (await newDeveloper('suspended')).id }, form: { confirmed: 'yes' } }),
  },
  'GET /admin/teams': { capability: 'view' },
  'GET /admin/teams/:id': { capability: 'view', target: async () => ({ params: { id: await newTeam(false) } }) },
  'POST /admin/teams/:id/suspend': {
    capability: 'developers.suspend',
    target: async () => ({ params: { id: await newTeam(false) }, form: { confirmed: 'yes' } }),
  },
  'POST /admin/teams/:id/reinstate': {
    capability: 'developers.suspend',
    target: async () => ({ params: { id: await newTeam(true) }, form: { confirmed: 'yes' } }),
  },
  'GET /admin/review': { capability: 'view' },
  'GET /admin/review/apps/:id': { capability: 'view', target: async () => ({ params: { id: (await pendingApp()).id } }) },
  'POST /admin/review/apps/:id/approve': {
    capability: 'apps.decide',
    target: async () => pendingApp().then(({ id, version }) => ({ params: { id }, form: { version, checked: 'yes' } })),
  },
  'POST /admin/review/apps/:id/reject': {
    capability: 'apps.decide',
    target: async () => pendingApp().then(({ id, version }) => ({ params: { id }, form: { version, reason: 'Blurry screenshots.' } })),
  },
  'GET /admin/review/apps/:id/claim': { capability: 'view', target: async () => ({ params: { id: (await pendingApp()).id } }) },
  'POST /admin/review/apps/:id/claim': { capability: 'apps.decide', target: async () => ({ params: { id: (await pendingApp()).id } }) },
  'POST /admin/review/apps/:id/claim/take-over': { capability: 'apps.decide', target: async () => ({ params: { id: (await pendingApp()).id } }) },
  'POST /admin/review/apps/:id/claim/release': { capability: 'apps.decide', target: async () => ({ params: { id: (await pendingApp()).id } }) },
  'GET /admin/review/revisions/:id': { capability: 'view', target: async () => ({ params: { id: (await revisedApp()).id } }) },
  'POST /admin/review/revisions/:id/approve': {
    capability: 'apps.decide',
    target: async () => revisedApp().then(({ id, version }) => ({ params: { id }, form: { version, checked: 'yes' } })),
  },
  'POST /admin/review/revisions/:id/reject': {
    capability: 'apps.decide',
    target: async () => revisedApp().then(({ id, version }) => ({ params: { id }, form: { version, reason: 'Not this time.' } })),
  },
  'GET /admin/review/revisions/:id/claim': { capability: 'view', target: async () => ({ params: { id: (await revisedApp()).id } }) },
  'POST /admin/review/revisions/:id/claim': { capability: 'apps.decide', target: async () => ({ params: { id: (await revisedApp()).id } }) },
  'POST /admin/review/revisions/:id/claim/take-over': {
    capability: 'apps.decide',
    target: async () => ({ params: { id: (await revisedApp()).id } }),
  },
  'POST /admin/review/revisions/:id/claim/release': { capability: 'apps.decide', target: async () => ({ params: { id: (await revisedApp()).id } }) },
  'GET /admin/apps': { capability: 'view' },
  'GET /admin/mirror/:file': { capability: 'view', target: async () => ({ params: { file: await storedCopy() } }) },
  'GET /admin/apps/:id': { capability: 'view', target: async () => ({ params: { id: (await liveApp()).id } }) },
  'POST /admin/apps/:id/feature': { capability: 'apps.feature', target: async () => ({ params: { id: (await liveApp()).id } }) },
  'POST /admin/apps/:id/unfeature': {
    capability: 'apps.feature',
    async target() {
      const app = await liveApp();
      await t.sql('update apps set featured = true where id = ?', [app.id]);
      return { params: { id: app.id } };
    },
  },
  'POST /admin/apps/:id/suspend': {
    capability: 'apps.suspend',
    target: async () => ({ params: { id: (await liveApp()).id }, form: { confirmed: 'yes' } }),
  },
  'POST /admin/apps/:id/relist': {
    capability: 'apps.suspend',
    async target() {
      const app = await liveApp();
      await decideApp(deps(t), app.id, 'suspend', { actor: CLI_ACTOR });
      return { params: { id: app.id }, form: { confirmed: 'yes' } };
    },
  },
  'POST /admin/apps/:id/edit': {
    capability: 'apps.support-edit',
    target: async () =>
      liveApp().then((app) => ({ params: { id: app.id }, form: { version: String(app.version), description: 'Edited by support.' } })),
  },
  'GET /admin/oauth-clients': { capability: 'view' },
  'POST /admin/oauth-clients': {
    capability: 'oauth-clients.register',
    target: async () => ({
      form: { developer: (await newDeveloper('verified')).email, clientId: `client-${crypto.randomUUID()}`, name: 'Their client' },
    }),
  },
  'GET /admin/reviews': { capability: 'view' },
  'POST /admin/reviews/:id/hide': { capability: 'reviews.moderate', target: async () => ({ params: { id: await review() } }) },
  'POST /admin/reviews/:id/unhide': {
    capability: 'reviews.moderate',
    async target() {
      const id = await review();
      await setReviewHidden(t.ctx.orm.em.fork(), t.ctx.jobs, id, true, CLI_ACTOR);
      return { params: { id } };
    },
  },
  'GET /admin/queue-health': { capability: 'view' },
  'GET /admin/jobs': { capability: 'jobs' },
  'POST /admin/jobs/dead/:queue/:id/retry': {
    capability: 'jobs',
    async target() {
      // A job that fails its only attempt lands in the dead-letter queue, as a real one does (nothing else waits in this queue here).
      const queue = 'admins.daily-digest';
      await t.ctx.boss.send(queue, { marker: crypto.randomUUID() }, { retryLimit: 0 });
      const [job] = await t.ctx.boss.fetch(queue);
      await t.ctx.boss.fail(queue, job!.id, { message: 'failed for the test' });
      const [dead] = await t.sql<{ id: string }>(`select id from pgboss.job where name = ? and data = ?::jsonb`, [
        `${queue}.dead`,
        JSON.stringify(job!.data),
      ]);
      return { params: { queue: `${queue}.dead`, id: dead!.id } };
    },
  },
  'GET /admin/jobs/outbox': { capability: 'jobs' },
  'GET /admin/jobs/outbox/:messageId': { capability: 'jobs', target: async () => ({ params: { messageId: await outboxMessage() } }) },
  'GET /admin/jobs/outbox/:messageId/preview': { capability: 'jobs', target: async () => ({ params: { messageId: await outboxMessage() } }) },
  'GET /admin/audit': { capability: 'view' },
  'GET /admin/admins': { capability: 'admins.manage' },
  'POST /admin/admins': {
    capability: 'admins.manage',
    target: async () => ({ form: { email: `new-admin-${crypto.randomUUID()}@example.com`, password: 'a long enough password 1', role: 'reviewer' } }),
  },
  'POST /admin/admins/:id/role': {
    capability: 'admins.manage',
    target: async () => ({ params: { id: await otherAdmin() }, form: { role: 'support' } }),
  },
  'POST /admin/admins/:id/reset-totp': {
    capability: 'admins.manage',
    target: async () => ({ params: { id: await otherAdmin() }, form: { confirmed: 'yes' } }),
  },
  'POST /admin/admins/:id/disable': {
    capability: 'admins.manage',
    target: async () => ({ params: { id: await otherAdmin() }, form: { confirmed: 'yes' } }),
  },
  'POST /admin/admins/:id/enable': {
    capability: 'admins.manage',
    async target() {
      const id = await otherAdmin();
      await t.sql('update admins set disabled_at = now() where id = ?', [id]);
      return { params: { id } };
    },
  },
  // Unknown console paths are console pages too (404 inside the shell), behind the same checks.
  'GET /admin/*': { capability: 'view', target: async () => ({ params: { '*': 'no-such-page' } }), ok: 404 },
  'POST /admin/*': { capability: 'view', target: async () => ({ params: { '*': 'no-such-action' } }), ok: 404 },
};

/** Asset file names carry a content hash: the table names them once. */
const routeKey = (method: string, path: string) => `${method} ${path.startsWith('/admin/assets/') ? '/admin/assets/*' : path}`;

const pathOf = (template: string, params: Record<string, string> = {}) =>
  template.replace(/:([A-Za-z]+)|\*/g, (whole, name?: string) => encodeURIComponent(params[name ?? '*'] ?? whole));

function client(session?: string): ConsoleClient {
  const c = new ConsoleClient(t);
  if (session) c.cookies.set('marketplace_admin', sessions[session]!.token);
  return c;
}

/** The whole database's digest, read over a connection of its own (`openFingerprintReader`). */
let fingerprints: Awaited<ReturnType<typeof openFingerprintReader>>;
const fingerprint = () => databaseFingerprint(fingerprints);

const rolesBelow = (capability: Capability): AdminRole[] => ADMIN_ROLES.slice(0, ADMIN_ROLES.indexOf(CAPABILITIES[capability]));

beforeAll(async () => {
  // No workers: only the requests below change the database between two fingerprints.
  t = await createTestApp({}, { role: 'api' });
  fingerprints = await openFingerprintReader(t);
  ownerKey = await mintKey(t, await registerDeveloper(t, { name: 'App Owner' }));
  // Every session this file uses is opened here: opening one sweeps ended ones, which would show in a fingerprint.
  const open = async (name: string, role: AdminRole, stage: 'active' | 'totp' = 'active') => {
    const token = await openSession(t.ctx.orm.em.fork(), (await createAdminAccount(t, role)).id, stage);
    const [row] = await t.sql('select csrf_token from admin_sessions where token_hash = ?', [hashSessionToken(token)]);
    sessions[name] = { token, csrf: row.csrf_token };
  };
  // At once: each account's password hash (argon2id) runs off the main thread. None has ended yet, so none sweeps another.
  await Promise.all([
    ...ADMIN_ROLES.map((role) => open(role, role)),
    open('bystander', 'owner'),
    open('expired', 'owner'),
    open('idle', 'owner'),
    open('half', 'owner', 'totp'),
  ]);
  await t.sql(`update admin_sessions set expires_at = now() - interval '1 second' where token_hash = ?`, [hashSessionToken(sessions.expired!.token)]);
  await t.sql(`update admin_sessions set last_seen_at = now() - interval '31 minutes' where token_hash = ?`, [
    hashSessionToken(sessions.idle!.token),
  ]);
});
afterAll(async () => {
  await fingerprints.close();
  await t.close();
});

test('every console route is in the table, and the table names only routes that exist', () => {
  const served = [...new Set(t.app.routes.filter((route) => route.path.startsWith('/admin')).map((route) => routeKey(route.method, route.path)))];
  expect(served.filter((route) => !(route in ROUTES))).toEqual([]);
  expect(Object.keys(ROUTES).filter((route) => !served.includes(route))).toEqual([]);
});

test('the table names real capabilities, and every capability is used by some route', () => {
  const used = new Set(Object.values(ROUTES).flatMap((spec) => ('capability' in spec ? [spec.capability] : [])));
  expect([...used].filter((name) => !(name in CAPABILITIES))).toEqual([]);
  expect(Object.keys(CAPABILITIES).filter((name) => !used.has(name as Capability))).toEqual([]);
});

interface Attempt {
  name: string;
  session?: string;
  htmx?: boolean;
  csrf?: 'none' | 'other' | 'own';
  headers?: Record<string, string>;
  want: 'sign-in' | 'signed-out' | 'role' | 'csrf';
}

function attempts(method: string, capability: Capability): Attempt[] {
  const safe = method === 'GET';
  const least = CAPABILITIES[capability];
  const signedOut = safe ? 'sign-in' : 'signed-out';
  const list: Attempt[] = [
    { name: 'no session', want: signedOut },
    { name: 'no session (htmx)', htmx: true, want: 'signed-out' },
    { name: 'expired session', session: 'expired', csrf: 'own', want: signedOut },
    { name: 'idle session', session: 'idle', csrf: 'own', want: signedOut },
    { name: 'password only, second factor pending', session: 'half', csrf: 'own', want: signedOut },
    ...rolesBelow(capability).map((role): Attempt => ({ name: `wrong role (${role})`, session: role, csrf: 'own', want: 'role' })),
  ];
  if (!safe) {
    list.push(
      { name: 'missing CSRF token', session: least, csrf: 'none', want: 'csrf' },
      { name: "another session's CSRF token", session: least, csrf: 'other', want: 'csrf' },
      { name: 'missing CSRF token (htmx)', session: least, csrf: 'none', htmx: true, want: 'csrf' },
      { name: 'cross-site request', session: least, csrf: 'own', headers: { 'sec-fetch-site': 'cross-site' }, want: 'csrf' },
    );
  }
  return list;
}

function formFor(attempt: { session?: string; csrf?: 'none' | 'other' | 'own' }, form: Record<string, string> = {}) {
  if (attempt.csrf === 'own') return { ...form, _csrf: sessions[attempt.session!]!.csrf };
  if (attempt.csrf === 'other') return { ...form, _csrf: sessions.bystander!.csrf };
  return form;
}

describe('console routes × missing rights', () => {
  const guarded = Object.entries(ROUTES).filter(([, spec]) => 'capability' in spec);
  test.each(guarded.map(([route]) => route))('%s', async (route) => {
    const spec = ROUTES[route] as Extract<ConsoleRouteSpec, { capability: Capability }>;
    const [method, template] = route.split(' ') as [string, string];
    const target = (await spec.target?.()) ?? {};
    const path = pathOf(template, target.params);
    const before = await fingerprint();

    // Each changes nothing, as the digests around the whole set show: their order cannot matter, so they go at once.
    const mismatches = (
      await Promise.all(
        attempts(method, spec.capability).map(async (attempt) => {
          const found: string[] = [];
          const response = await client(attempt.session).request(method, path, {
            form: method === 'GET' ? undefined : formFor(attempt, target.form),
            htmx: attempt.htmx,
            headers: attempt.headers,
          });
          const login = `/admin/login?next=${encodeURIComponent(path)}`;
          const problem =
            attempt.want === 'sign-in'
              ? response.status === 303 && response.location === login
                ? null
                : `expected 303 to ${login}`
              : response.status !== 403
                ? 'expected 403'
                : attempt.want === 'signed-out' && attempt.htmx && response.headers.get('hx-redirect') !== login
                  ? `expected HX-Redirect to ${login}`
                  : attempt.want === 'role' && !response.text.includes(`Your role (${attempt.session}) cannot do this.`)
                    ? 'expected the role refusal'
                    : attempt.want === 'csrf' && !response.text.includes('did not come from the console')
                      ? 'expected the CSRF refusal'
                      : null;
          if (problem) found.push(`${attempt.name}: ${problem}, got ${response.status} ${response.location ?? ''}`);
          if (response.headers.getSetCookie().some((cookie) => cookie.startsWith('marketplace_admin=')))
            found.push(`${attempt.name}: set a session cookie`);
          return found;
        }),
      )
    ).flat();
    expect(mismatches).toEqual([]);
    expect(await fingerprint()).toEqual(before);

    // The least role that holds the capability makes the same request, and it works.
    const least = CAPABILITIES[spec.capability];
    const allowed = await client(least).request(method, path, {
      form: method === 'GET' ? undefined : formFor({ session: least, csrf: 'own' }, target.form),
    });
    if (method === 'GET' || spec.ok) {
      expect(allowed.status).toBe(spec.ok ?? 200);
    } else {
      expect(allowed.status).toBe(303);
      const [{ flash }] = await t.sql('select flash from admin_sessions where token_hash = ?', [hashSessionToken(sessions[least]!.token)]);
      expect(JSON.parse(flash), route).toMatchObject({ kind: 'ok' });
      await t.sql('update admin_sessions set flash = null where token_hash = ?', [hashSessionToken(sessions[least]!.token)]);
    }
  });
});

describe('sign-in routes × missing rights', () => {
  const open = Object.entries(ROUTES).filter(([, spec]) => 'public' in spec);
  test.each(open.map(([route]) => route))('%s', async (route) => {
    const spec = ROUTES[route] as Extract<ConsoleRouteSpec, { public: unknown }>;
    const [method, template] = route.split(' ') as [string, string];
    const path = template === '/admin/assets/*' ? t.app.routes.find((r) => r.path.startsWith('/admin/assets/'))!.path : template;
    const before = await fingerprint();
    const cases: Record<PublicCase, { session?: string; csrf?: 'none' | 'other' | 'own' }> = {
      'no session': {},
      'expired session': { session: 'expired', csrf: 'own' },
      'missing CSRF token': { session: route.includes('/login/') ? 'half' : 'owner', csrf: 'none' },
      'wrong CSRF token': { session: route.includes('/login/') ? 'half' : 'owner', csrf: 'other' },
    };
    for (const [name, want] of Object.entries(spec.public) as [PublicCase, { status: number; location?: string }][]) {
      const attempt = cases[name];
      const response = await client(attempt.session).request(method, path, {
        form:
          method === 'GET'
            ? undefined
            : {
                ...formFor(attempt),
                code: '123456',
                email: 'x@example.com',
                password: 'not the password',
                _login: attempt.csrf === 'other' ? 'forged-login-token-of-32-chars-xx' : '',
              },
      });
      expect(response.status, `${route}: ${name}`).toBe(want.status);
      if (want.location) expect(response.location, `${route}: ${name}`).toBe(want.location);
      expect(
        response.headers.getSetCookie().some((cookie) => /^marketplace_admin=[^;]/.test(cookie)),
        `${route}: ${name} set a session`,
      ).toBe(false);
    }
    expect(await fingerprint()).toEqual(before);
  });

  test('sign-out refused for a missing token leaves the session working', async () => {
    expect((await client('owner').request('POST', '/admin/logout', { form: {} })).status).toBe(403);
    expect((await client('owner').get('/admin')).status).toBe(200);
  });
});
