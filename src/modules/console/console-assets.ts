import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { Elysia } from 'elysia';
import type { ConsoleAssets } from '../../../views/admin/layout.ts';
import { respond } from './console-response.ts';

/**
 * The console's scripts and stylesheet, served by this process: htmx from the installed
 * `htmx.org` package (never a CDN), `views/admin/shortcuts.js` and `views/admin/admin.css`. Their URLs carry a content hash,
 * so they can be cached for a year and still change with a release.
 */
interface Asset {
  path: string;
  body: string;
  type: string;
}

function asset(name: string, extension: string, body: string, type: string): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/admin/assets/${name}.${hash}.${extension}`, body, type };
}

function loadAssets(): { css: Asset; htmx: Asset; shortcuts: Asset } {
  const css = readFileSync(new URL('../../../views/admin/admin.css', import.meta.url), 'utf8');
  const htmx = readFileSync(Bun.resolveSync('htmx.org/dist/htmx.min.js', import.meta.dir), 'utf8');
  const shortcuts = readFileSync(new URL('../../../views/admin/shortcuts.js', import.meta.url), 'utf8');
  return {
    css: asset('admin', 'css', css, 'text/css; charset=utf-8'),
    htmx: asset('htmx', 'js', htmx, 'text/javascript; charset=utf-8'),
    shortcuts: asset('shortcuts', 'js', shortcuts, 'text/javascript; charset=utf-8'),
  };
}

let loaded: ReturnType<typeof loadAssets> | undefined;

export function consoleAssets(security: Record<string, string>) {
  loaded ??= loadAssets();
  const { css, htmx, shortcuts } = loaded;
  const urls: ConsoleAssets = { css: css.path, htmx: htmx.path, shortcuts: shortcuts.path };
  const serve = (file: Asset) => () =>
    respond(file.body, security, { headers: { 'content-type': file.type, 'cache-control': 'public, max-age=31536000, immutable' } });
  const plugin = new Elysia()
    .get(css.path, serve(css), { detail: { hide: true } })
    .get(htmx.path, serve(htmx), { detail: { hide: true } })
    .get(shortcuts.path, serve(shortcuts), { detail: { hide: true } });
  return { urls, plugin };
}
