import { Elysia } from 'elysia';
import type { Server } from 'bun';
import type { AppContext } from '../../app-context.ts';
import { ApiError } from '../../http/problem.ts';
import { createClientAddressResolver } from '../../http/client-address.ts';
import { safeReturnPath } from '../console/console-response.ts';
import { errorPage } from '../../../views/admin/errors.ts';
import { accountPage, codeForm, enrolmentForm, loginForm, type Enrolment } from '../../../views/admin/sign-in.ts';
import type { ConsoleKit } from '../console/console-plugin.ts';
import { field, formOf } from '../console/console-forms.ts';
import { sameSecret } from '../../lib/constant-time.ts';
import { setPendingTotpSecret, type AdminSession } from './sessions.service.ts';
import { completeSecondFactor, confirmEnrolment, createSignInGuard, recentFailures, signInWithPassword, signOut } from './sign-in.service.ts';
import { newTotpSecret, totpQrSvg, totpUri } from './totp.ts';
import { openTotpSecret, sealTotpSecret } from './totp-secrets.ts';

/**
 * Sign-in (`/admin/login`), the second factor, enrolment, sign-out and the account page. The
 * sign-in form is protected against login CSRF by a double-submit cookie; every later form by
 * the session's own token.
 */
const LOGIN_COOKIE = 'marketplace_login';

interface Route {
  request: Request;
  body?: unknown;
  server?: Server<unknown> | null;
}

const nextOf = (value: unknown) => safeReturnPath(value) ?? '/admin';
const hide = { detail: { hide: true } };

export function signInAdmin(ctx: AppContext, kit: ConsoleKit) {
  const keys = ctx.config.webhookEncryptionKeys;
  const guard = createSignInGuard(ctx.orm, ctx.config.rateLimits.signInFailuresPerMinute);
  const addressOf = createClientAddressResolver(ctx.config.trustedProxies);
  const totpRequired = ctx.config.env === 'production';
  const loginCookie = kit.production ? `__Host-${LOGIN_COOKIE}` : LOGIN_COOKIE;
  const { pub, cookies } = kit;

  /** The enrolment in progress, opened for its page (the only place the new secret is shown). */
  const enrolmentOf = (session: AdminSession): Enrolment | null => {
    if (!session.pendingTotpSecretSealed) return null;
    const secret = openTotpSecret(keys, session.pendingTotpSecretSealed, session.admin.id);
    return { secret, qrSvg: totpQrSvg(totpUri(secret, session.admin.email)), needsEnrolmentCode: session.admin.enrolmentCodeRequired };
  };

  function loginPage(
    request: Request,
    next: string,
    status = 200,
    extra: { email?: string; message?: { kind: 'error'; text: string }; headers?: Record<string, string> } = {},
  ) {
    const existing = cookies.read(request, loginCookie);
    const csrf =
      existing && /^[A-Za-z0-9_-]{32}$/.test(existing) ? existing : Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64url');
    return pub.page('Sign in', loginForm({ csrf, next, email: extra.email, message: extra.message }), status, {
      cookies: [cookies.make(loginCookie, csrf, 3600)],
      headers: extra.headers,
    });
  }

  /** The half-signed-in session a second-factor page belongs to, or a redirect to start over. */
  async function halfSession(request: Request, stage: 'totp' | 'enrol'): Promise<AdminSession | Response> {
    const session = await kit.findSession(ctx.orm.em.fork(), request);
    if (session?.stage === 'active') return pub.seeOther('/admin');
    if (!session || session.stage !== stage) return pub.seeOther('/admin/login');
    return session;
  }

  const afterStage = (stage: string, next: string) =>
    stage === 'active' ? next : `/admin/login/${stage === 'totp' ? 'code' : 'enrol'}?next=${encodeURIComponent(next)}`;

  async function secondFactor({ request, body, server }: Route, stage: 'totp' | 'enrol') {
    const session = await halfSession(request, stage);
    if (session instanceof Response) return session;
    const form = formOf(body);
    const next = nextOf(field(form, 'next'));
    const render = (status: number, text: string) =>
      stage === 'totp'
        ? pub.page('Two-factor sign-in', codeForm({ csrf: session.csrfToken, next, message: { kind: 'error', text } }), status)
        : pub.page(
            'Set up two-factor sign-in',
            enrolmentForm({
              action: '/admin/login/enrol',
              csrf: session.csrfToken,
              next,
              enrolment: enrolmentOf(session)!,
              required: true,
              message: { kind: 'error', text },
            }),
            status,
          );
    if (!sameSecret(session.csrfToken, field(form, '_csrf'))) return render(403, 'This form has expired. Enter the code again.');
    try {
      const token = await completeSecondFactor(ctx.orm.em.fork(), guard, keys, session, {
        code: field(form, 'code') ?? '',
        enrolmentCode: field(form, 'enrolmentCode'),
        address: addressOf(request, server),
      });
      return pub.seeOther(next, [cookies.session(token)]);
    } catch (error) {
      if (error instanceof ApiError) return render(error.status, error.detail);
      return pub.failure(request, error, false);
    }
  }

  return new Elysia()
    .use(kit.plugin)
    .get(
      '/admin/login',
      async ({ request, query }) => {
        const session = await kit.findSession(ctx.orm.em.fork(), request);
        const next = nextOf(query.next);
        if (session) return pub.seeOther(afterStage(session.stage, next));
        return loginPage(request, next);
      },
      hide,
    )
    .post(
      '/admin/login',
      async ({ request, body, server }) => {
        const form = formOf(body);
        const next = nextOf(field(form, 'next'));
        const email = (field(form, 'email') ?? '').slice(0, 254);
        const sent = field(form, '_login');
        if (!sameSecret(cookies.read(request, loginCookie) ?? '', sent)) {
          return loginPage(request, next, 403, { email, message: { kind: 'error', text: 'The sign-in form expired. Please try again.' } });
        }
        try {
          const { token, stage } = await signInWithPassword(ctx.orm.em.fork(), guard, keys, {
            email,
            password: field(form, 'password') ?? '',
            address: addressOf(request, server),
            totpRequired,
          });
          return pub.seeOther(afterStage(stage, next), [cookies.session(token), cookies.make(loginCookie, '', 0)]);
        } catch (error) {
          if (error instanceof ApiError)
            return loginPage(request, next, error.status, { email, message: { kind: 'error', text: error.detail }, headers: error.headers });
          return pub.failure(request, error, false);
        }
      },
      hide,
    )
    .get(
      '/admin/login/code',
      async ({ request, query }) => {
        const session = await halfSession(request, 'totp');
        if (session instanceof Response) return session;
        return pub.page('Two-factor sign-in', codeForm({ csrf: session.csrfToken, next: nextOf(query.next) }));
      },
      hide,
    )
    .post('/admin/login/code', (route) => secondFactor(route, 'totp'), hide)
    .get(
      '/admin/login/enrol',
      async ({ request, query }) => {
        const session = await halfSession(request, 'enrol');
        if (session instanceof Response) return session;
        return pub.page(
          'Set up two-factor sign-in',
          enrolmentForm({
            action: '/admin/login/enrol',
            csrf: session.csrfToken,
            next: nextOf(query.next),
            enrolment: enrolmentOf(session)!,
            required: true,
          }),
        );
      },
      hide,
    )
    .post('/admin/login/enrol', (route) => secondFactor(route, 'enrol'), hide)
    .post(
      '/admin/logout',
      async ({ request, body }) => {
        const em = ctx.orm.em.fork();
        const session = await kit.findSession(em, request);
        // Signing out needs the session's token too: a cross-site form must not be able to sign an admin out.
        if (session && !sameSecret(session.csrfToken, field(formOf(body), '_csrf'))) {
          return pub.page('Refused', errorPage('This form has expired. Reload the page and sign out again.', { href: '/admin', label: 'Back' }), 403);
        }
        if (session) await signOut(em, session);
        return pub.seeOther('/admin/login', [cookies.clearSession()]);
      },
      hide,
    )
    .get(
      '/admin/account',
      kit.page(async (c) => ({
        title: 'Your account',
        body: accountPage({
          email: c.session.admin.email,
          role: c.session.admin.role,
          totpEnrolled: c.session.admin.totpEnrolled,
          csrf: c.session.csrfToken,
          enrolment: c.session.admin.totpEnrolled ? null : enrolmentOf(c.session),
          failures: await recentFailures(c.em, c.session.admin.id),
        }),
      })),
      { capability: 'view' },
    )
    .post(
      '/admin/account/totp/start',
      kit.action({
        run: (c) => setPendingTotpSecret(c.em, c.session.tokenHash, sealTotpSecret(keys, newTotpSecret(), c.session.admin.id)),
        success: () => 'Scan the code below with your authenticator app, then enter the code it shows.',
        redirect: () => '/admin/account',
      }),
      { capability: 'view' },
    )
    .post(
      '/admin/account/totp/confirm',
      kit.action({
        run: (c) =>
          confirmEnrolment(c.em, guard, keys, c.session, {
            code: field(c.form, 'code') ?? '',
            enrolmentCode: field(c.form, 'enrolmentCode'),
            address: c.address,
          }),
        success: () => 'Two-factor sign-in is on.',
        redirect: () => '/admin/account',
      }),
      { capability: 'view' },
    );
}
