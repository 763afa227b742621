import { createAdmin } from '../../src/modules/admin-accounts/admins.service.ts';
import type { AdminRole } from '../../src/modules/admin-accounts/admin.entity.ts';
import type { TestApp } from '../support/harness.ts';
import { logLinesOfRequest } from '../support/suite-log.ts';

/** Admin accounts and an HTTP client with a cookie jar for console tests that need no browser. */
export interface AdminAccount {
  id: string;
  email: string;
  password: string;
  role: AdminRole;
}

let counter = 0;

export async function createAdminAccount(t: TestApp, role: AdminRole): Promise<AdminAccount> {
  counter += 1;
  const email = `${role}-${counter}-${crypto.randomUUID().slice(0, 6)}@example.com`;
  const password = `correct horse battery ${counter}`;
  const admin = await createAdmin(t.ctx.orm.em.fork(), { email, password, role });
  return { id: admin.id, email, password, role };
}

export interface ConsoleResponse {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

/** Talks to the console through `app.handle` like a browser without JavaScript would (or like htmx, with `htmx: true`). */
export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page that carried one. */
  csrf = '';

  constructor(private readonly t: TestApp) {}

  private cookieHeader() {
    return [...this.cookies].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ');
  }

  async request(
    method: string,
    path: string,
    options: { form?: Record<string, string | string[]>; headers?: Record<string, string>; htmx?: boolean } = {},
  ): Promise<ConsoleResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookies.size) headers.cookie = this.cookieHeader();
    if (options.htmx) headers['hx-request'] = 'true';
    let body: string | undefined;
    if (options.form) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(options.form)) for (const v of [value].flat()) params.append(name, v);
      body = params.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const response = await this.t.app.handle(new Request(`http://localhost${path}`, { method, headers, body, redirect: 'manual' }));
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = cookie.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = decodeURIComponent(pair.slice(index + 1).trim());
      if (attributes.some((a) => /max-age=0/i.test(a.trim())) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    const csrf = text.match(/name="_csrf" value="([^"]+)"/)?.[1];
    if (csrf) this.csrf = csrf;
    return { status: response.status, headers: response.headers, text, location: response.headers.get('location') };
  }

  get(path: string, options: { htmx?: boolean } = {}) {
    return this.request('GET', path, options);
  }

  /** Posts a form with the session's CSRF token unless `_csrf` is given (or set to undefined by `withoutCsrf`). */
  post(
    path: string,
    form: Record<string, string | string[]> = {},
    options: { htmx?: boolean; withoutCsrf?: boolean; headers?: Record<string, string> } = {},
  ) {
    const fields = options.withoutCsrf ? form : { _csrf: this.csrf, ...form };
    return this.request('POST', path, { form: fields, htmx: options.htmx, headers: options.headers });
  }

  /** Email and password; returns the response to the password step. */
  async signIn(email: string, password: string, headers: Record<string, string> = {}): Promise<ConsoleResponse> {
    const page = await this.get('/admin/login');
    const login = page.text.match(/name="_login" value="([^"]+)"/)?.[1] ?? '';
    const response = await this.request('POST', '/admin/login', { form: { _login: login, email, password, next: '/admin' }, headers });
    if (response.status === 303 && response.location === '/admin') await this.get('/admin');
    return response;
  }
}

/** Signs an admin in and loads the dashboard (so `csrf` is set). */
export async function signedIn(t: TestApp, account: AdminAccount): Promise<ConsoleClient> {
  const client = new ConsoleClient(t);
  const response = await client.signIn(account.email, account.password);
  if (response.status !== 303 || response.location !== '/admin') {
    const logged = logLinesOfRequest(response.headers.get('x-request-id')).join('\n');
    throw new Error(`sign-in failed: ${response.status} ${response.location}${logged ? `\n${logged}` : ''}`);
  }
  return client;
}
