import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { createConsoleKit } from '../../src/modules/console/console-plugin.ts';

/**
 * The console plugin's promise (D120): a console handler runs only behind `{ capability }`. A
 * route that declares it is checked before its handler; one that leaves it out does not compile,
 * and wired anyway (the cast below) it fails closed without running the handler.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 30_000);
afterAll(() => t.close(), 30_000);

describe('the capability macro', () => {
  test('a route that declares a capability is checked before its handler: without a session, a page redirects to the sign-in', async () => {
    const kit = createConsoleKit(t.ctx);
    let ran = false;
    const app = new Elysia().use(kit.plugin).get(
      '/admin/probe',
      kit.page(async () => {
        ran = true;
        return { title: 'Probe', body: '' };
      }),
      { capability: 'view' },
    );
    const response = await app.handle(new Request('http://localhost/admin/probe'));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/admin/login?next=%2Fadmin%2Fprobe');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(ran).toBe(false);
  });

  test('a route without it does not compile, and wired anyway it fails closed without running the handler', async () => {
    const kit = createConsoleKit(t.ctx);
    let ran = false;
    const handler = kit.page(async () => {
      ran = true;
      return { title: 'Probe', body: '' };
    });
    // @ts-expect-error: `page` needs the macro's `admin`, which only `{ capability }` resolves.
    new Elysia().use(kit.plugin).get('/admin/unchecked', handler);
    const app = new Elysia().get('/admin/unchecked', handler as unknown as () => Promise<Response>);
    const response = await app.handle(new Request('http://localhost/admin/unchecked'));
    expect(response.status).toBe(500);
    expect(ran).toBe(false);
  });
});
