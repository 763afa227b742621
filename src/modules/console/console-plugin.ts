import { Elysia, status } from 'elysia';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContext } from '../../app-context.ts';
import { ApiError } from '../../http/problem.ts';
import { requestIdOf, toApiError } from '../../http/lifecycle.ts';
import {
  consoleSecurityHeaders,
  htmlBody,
  isHtmxRequest,
  readCookie,
  respond,
  safeReturnPath,
  serializeCookie,
  type ResponseExtras,
} from './console-response.ts';
import { consoleAssets } from './console-assets.ts';
import { createClientAddressResolver } from '../../http/client-address.ts';
import { sameSecret } from '../../lib/constant-time.ts';
import type { Server } from 'bun';
import type { Renderable, SafeHtml } from '../../../views/html.ts';
import { shell, type ConsoleAssets } from '../../../views/admin/layout.ts';
import { confirmationPage, errorPage } from '../../../views/admin/errors.ts';
import { notice, type FormContext } from '../../../views/admin/components.ts';
import type { Actor } from '../audit/audit.service.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { field, formOf, type FormFields } from './console-forms.ts';
import { capabilitiesOf, holds, type Capabilities, type Capability } from '../admin-accounts/capabilities.ts';
import { navFor } from './console-nav.ts';
import { clearFlash, findSession, setFlash, type AdminSession, type Flash } from '../admin-sign-in/sessions.service.ts';

/**
 * The console as one Elysia plugin (D120). A route declares `{ capability: 'support' }` and the
 * plugin's macro, before the handler, finds the session (none, expired or half-signed-in: a page
 * redirects to the sign-in, anything else is 403), checks the CSRF token of every state-changing
 * request (hidden field `_csrf` or header `X-CSRF-Token`) and the role, then resolves `admin`
 * (the request as the console reads it). The handler is `page`, `fragment` or `action`, which need
 * `admin`, so a route without the macro does not compile (nor run: `checked` refuses). Write the
 * options inline on each route: Elysia rewrites the object it is given, so one shared between
 * routes breaks the second. Domain errors become HTML (a page, or the fragment htmx swaps);
 * every response carries the console's security headers.
 */
export interface ConsoleRequest {
  request: Request;
  /** The client's address (through trusted proxies only). */
  address: string;
  path: string;
  query: Record<string, string | undefined>;
  params: Record<string, string>;
  form: FormFields;
  session: AdminSession;
  actor: Actor;
  can: Capabilities;
  /** For buttons on the page being drawn: the CSRF token and this page as the place to come back to. */
  forms: FormContext;
  htmx: boolean;
  em: EntityManager;
  deps: { em: EntityManager; jobs: JobQueue };
}

export interface PageResult {
  title: string;
  body: Renderable;
  back?: { href: string; label: string };
  status?: number;
}

export interface Outcome<T> {
  ok: boolean;
  result?: T;
  message: Flash;
  status: number;
}

export interface ActionSpec<T> {
  /** Destructive actions: the question asked before doing it. */
  confirm?: (c: ConsoleRequest) => string;
  run(c: ConsoleRequest): Promise<T>;
  /** The flash after success. */
  success(c: ConsoleRequest, result: T): string;
  /** What htmx swaps in: the row or panel the action changed, drawn as it is now, with the outcome (forms without htmx leave it out). */
  fragment?(c: ConsoleRequest, outcome: Outcome<T>): Promise<SafeHtml>;
  /** Without JavaScript: where to go afterwards (the form's `returnTo` wins when it is a console path). */
  redirect(c: ConsoleRequest, outcome: Outcome<T>): string;
  /** After a success, a page to open instead of staying (htmx included), e.g. the next item to review; null: stay. */
  follow?(c: ConsoleRequest, outcome: Outcome<T>): string | null;
}

interface RouteContext {
  request: Request;
  server?: Server<unknown> | null;
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
}

export const SESSION_COOKIE = 'marketplace_admin';
/** `__Host-` pins the cookie to this host over https, so a sibling subdomain cannot plant one. */
export const sessionCookieName = (secure: boolean) => (secure ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE);

const SAFE_METHODS = ['GET', 'HEAD'];

/** What `page`, `fragment` and `action` handlers receive: the macro's `admin`, present only on routes that declare a capability. */
type Checked = { admin: ConsoleRequest };

let instances = 0;

export function createConsoleKit(ctx: AppContext) {
  // Named so every feature's routes share one instance; the seed keeps apps apart (tests build many).
  const seed = ++instances;
  const production = ctx.config.env === 'production';
  const security = consoleSecurityHeaders();
  const { urls: assets, plugin: assetRoutes } = consoleAssets(security);
  const cookieName = sessionCookieName(production);
  const log = ctx.logger.child({ component: 'console' });
  const addressOf = createClientAddressResolver(ctx.config.trustedProxies);

  const send = (markup: SafeHtml | string, extras: ResponseExtras = {}) =>
    respond(typeof markup === 'string' ? markup : markup.value, security, {
      ...extras,
      headers: { 'content-type': 'text/html; charset=utf-8', ...extras.headers },
    });
  const seeOther = (location: string, cookies?: string[]) => respond(null, security, { status: 303, headers: { location }, cookies });

  /** A page outside a session's shell (no navigation): refusals, failures, the sign-in. */
  const standalone = (title: string, body: Renderable, status: number, headers?: Record<string, string>, cookies?: string[]) =>
    send(htmlBody(shell({ title, assets }, body)), { status, headers, cookies });

  /** Anything unexpected (the database down included): logged with the request id, shown without internals. */
  function failure(request: Request, error: unknown, htmx: boolean): Response {
    const requestId = requestIdOf(request);
    const { status, detail, headers } = toApiError('UNKNOWN', error);
    if (status >= 500) log.error('console request failed', { requestId, error, method: request.method, path: new URL(request.url).pathname });
    const text = `${status === 503 ? detail : 'Something went wrong.'} (Request ${requestId}.) Nothing was changed unless the page says so; try again.`;
    return htmx
      ? send(notice({ kind: 'error', text }), { status, headers })
      : standalone(status === 503 ? 'Temporarily unavailable' : 'Something went wrong', errorPage(text), status, headers);
  }

  async function authenticate(
    route: RouteContext,
    capability: Capability,
  ): Promise<{ ok: true; c: ConsoleRequest } | { ok: false; response: Response }> {
    const { request } = route;
    const url = new URL(request.url);
    const htmx = isHtmxRequest(request);
    const safe = SAFE_METHODS.includes(request.method);
    const em = ctx.orm.em.fork();
    const session = await findSession(em, readCookie(request, cookieName));
    if (session?.stage !== 'active') {
      const login = `/admin/login?next=${encodeURIComponent(url.pathname + url.search)}`;
      if (safe && !htmx) return { ok: false, response: seeOther(login) };
      const text = 'Your session has ended. Sign in again.';
      return {
        ok: false,
        response: htmx
          ? send(notice({ kind: 'error', text }), { status: 403, headers: { 'hx-redirect': login } })
          : standalone('Signed out', errorPage(text, { href: login, label: 'Sign in' }), 403),
      };
    }
    const form = formOf(route.body);
    if (!safe) {
      const token = request.headers.get('x-csrf-token') ?? field(form, '_csrf');
      const site = request.headers.get('sec-fetch-site');
      if (!sameSecret(session.csrfToken, token) || (site !== null && !['same-origin', 'none'].includes(site))) {
        const text = 'This form has expired or did not come from the console. Reload the page and try again.';
        return {
          ok: false,
          response: htmx ? send(notice({ kind: 'error', text }), { status: 403 }) : standalone('Refused', errorPage(text), 403),
        };
      }
    }
    const role = session.admin.role;
    if (!holds(role, capability)) {
      const text = `Your role (${role}) cannot do this.`;
      return {
        ok: false,
        response: htmx ? send(notice({ kind: 'error', text }), { status: 403 }) : standalone('Not allowed', errorPage(text), 403),
      };
    }
    const path = url.pathname;
    const c: ConsoleRequest = {
      request,
      address: addressOf(request, route.server),
      path,
      query: Object.fromEntries(
        Object.entries(route.query ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : Array.isArray(v) ? String(v[0]) : undefined]),
      ),
      params: route.params ?? {},
      form,
      session,
      actor: { label: `admin:${session.admin.id}`, role },
      can: capabilitiesOf(role),
      forms: { csrf: session.csrfToken, returnTo: safe ? path + url.search : (safeReturnPath(field(form, 'returnTo')) ?? path) },
      htmx,
      em,
      deps: { em, jobs: ctx.jobs },
    };
    return { ok: true, c };
  }

  /** `authenticate`, with a failure to even check (the database down) shown as a console page too. */
  const guard = (route: RouteContext, capability: Capability) =>
    authenticate(route, capability).catch((error: unknown) => ({
      ok: false as const,
      response: failure(route.request, error, isHtmxRequest(route.request)),
    }));

  /** A whole page inside the shell (htmx asking for it gets the same page; `hx-select` picks what it needs). */
  function renderPage(c: ConsoleRequest, result: PageResult, flash: Flash | null): Response {
    const markup = shell(
      {
        title: result.title,
        assets,
        admin: { email: c.session.admin.email, role: c.session.admin.role, csrf: c.session.csrfToken },
        nav: navFor(c.path, c.can),
        flash,
        back: result.back,
      },
      result.body,
    );
    return send(htmlBody(markup), { status: result.status ?? 200 });
  }

  /** The check every console route declares: `{ capability }` (the route is also left out of the API document). */
  const plugin = new Elysia({ name: 'console', seed }).macro({
    capability: (capability: Capability) => ({
      detail: { hide: true },
      async resolve(route: RouteContext) {
        const auth = await guard(route, capability);
        // A refusal ends the request here, as the response the console draws for it.
        if (!auth.ok) return status(auth.response.status as 403, auth.response as never);
        return { admin: auth.c };
      },
    }),
  });

  /** `admin` itself, so a handler wired to a route without the macro fails loudly instead of running unchecked. */
  const checked = (context: Checked): ConsoleRequest => {
    if (!context.admin) throw new Error('console route without { capability }: its check did not run');
    return context.admin;
  };

  function page(handler: (c: ConsoleRequest) => Promise<PageResult | Response>) {
    return async (context: Checked): Promise<Response> => {
      const c = checked(context);
      try {
        const result = await handler(c);
        if (result instanceof Response) return result;
        const flash = c.session.flash;
        if (flash) await clearFlash(c.em, c.session.tokenHash);
        return renderPage(c, result, flash);
      } catch (error) {
        if (error instanceof ApiError) {
          return renderPage(
            c,
            { title: error.status === 404 ? 'Not found' : 'Cannot show this', body: errorPage(error.detail), status: error.status },
            null,
          );
        }
        return failure(c.request, error, c.htmx);
      }
    };
  }

  /** A piece of a page for htmx (polling widgets, claim panels); never wrapped in the shell. */
  function fragment(handler: (c: ConsoleRequest) => Promise<SafeHtml>) {
    return async (context: Checked): Promise<Response> => {
      const c = checked(context);
      try {
        return send(await handler(c));
      } catch (error) {
        if (error instanceof ApiError) return send(notice({ kind: 'error', text: error.detail }), { status: error.status });
        return failure(c.request, error, true);
      }
    };
  }

  function action<T>(spec: ActionSpec<T>) {
    return async (context: Checked): Promise<Response> => {
      const c = checked(context);
      try {
        if (spec.confirm && field(c.form, 'confirmed') !== 'yes') {
          // Without JavaScript there is no dialog: ask on a page of its own, which posts again with `confirmed`.
          const fields = Object.fromEntries(
            Object.entries(c.form).flatMap(([k, v]) => (typeof v === 'string' && k !== '_csrf' ? [[k, v]] : [])),
          ) as Record<string, string>;
          return renderPage(
            c,
            {
              title: 'Please confirm',
              body: confirmationPage(spec.confirm(c), c.path, { ...fields, _csrf: c.session.csrfToken, confirmed: 'yes' }, c.forms.returnTo),
            },
            null,
          );
        }
        let outcome: Outcome<T>;
        try {
          const result = await spec.run(c);
          outcome = { ok: true, result, message: { kind: 'ok', text: spec.success(c, result) }, status: 200 };
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          const details = error.errors?.length ? ` (${error.errors.map((e) => `${e.path}: ${e.message}`).join('; ')})` : '';
          outcome = { ok: false, message: { kind: 'error', text: `${error.detail}${details}` }, status: error.status };
        }
        const follow = outcome.ok ? (spec.follow?.(c, outcome) ?? null) : null;
        if (c.htmx && spec.fragment && !follow) return send(await spec.fragment(c, outcome), { status: outcome.status });
        await setFlash(c.em, c.session.tokenHash, outcome.message);
        if (follow && c.htmx) return send('', { headers: { 'hx-redirect': follow } });
        return seeOther(follow ?? safeReturnPath(field(c.form, 'returnTo')) ?? spec.redirect(c, outcome));
      } catch (error) {
        return failure(c.request, error, c.htmx);
      }
    };
  }

  /** Pages and posts before a session exists (the sign-in itself). */
  const pub = {
    send,
    seeOther,
    page: (title: string, body: Renderable, status = 200, extras: Omit<ResponseExtras, 'status'> = {}) =>
      standalone(title, body, status, extras.headers, extras.cookies),
    failure,
  };

  const cookies = {
    name: cookieName,
    session: (token: string) => serializeCookie(cookieName, token, { secure: production }),
    clearSession: () => serializeCookie(cookieName, '', { secure: production, maxAge: 0 }),
    read: (request: Request, name: string) => readCookie(request, name),
    make: (name: string, value: string, maxAge?: number) => serializeCookie(name, value, { secure: production, maxAge }),
  };

  return {
    plugin,
    page,
    fragment,
    action,
    pub,
    cookies,
    assets,
    assetRoutes,
    security,
    production,
    findSession: (em: EntityManager, request: Request) => findSession(em, readCookie(request, cookieName)),
  };
}

export type ConsoleKit = ReturnType<typeof createConsoleKit>;
export type { ConsoleAssets };
