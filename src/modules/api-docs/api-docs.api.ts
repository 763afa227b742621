import { Elysia, t, type AnyElysia } from 'elysia';
import { dirname, join } from 'node:path';
import type { AppContext } from '../../app-context.ts';
import { ERROR_CODES, notFound, PROBLEM_TYPES, statusTitle, type ErrorCode } from '../../http/problem.ts';
import { html, type SafeHtml } from '../../../views/html.ts';
import { buildApiDocument } from './api-document.ts';

/**
 * The OpenAPI UI at `/swagger`, served from the installed `swagger-ui-dist` package (never a CDN,
 * so it works offline and runs only code this build pinned) under a CSP without inline script;
 * the document at `/swagger/json` (`api-document.ts`, built once from the finished route table);
 * and `/problems/<code>`, the page each problem's `type` URI leads to.
 */
const DIST = dirname(Bun.resolveSync('swagger-ui-dist/package.json', import.meta.dir));

const ASSETS = new Map([
  ['swagger-ui.css', { file: join(DIST, 'swagger-ui.css'), type: 'text/css; charset=utf-8' }],
  ['swagger-ui-bundle.js', { file: join(DIST, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' }],
  ['init.js', { file: join(import.meta.dir, 'swagger-init.js'), type: 'text/javascript; charset=utf-8' }],
]);

// Swagger UI sets inline styles on its elements; it loads nothing from elsewhere.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>App Marketplace API</title>
  <link rel="stylesheet" href="/swagger/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/swagger/assets/swagger-ui-bundle.js"></script>
  <script src="/swagger/assets/init.js"></script>
</body>
</html>
`;

const PROBLEM_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** `backticked` words as code; everything else escaped. */
const prose = (text: string): SafeHtml[] => text.split('`').map((part, index) => (index % 2 ? html`<code>${part}</code>` : html`${part}`));

function problemPage(code: ErrorCode): string {
  const { status, meaning, action } = PROBLEM_TYPES[code];
  return html`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${code} · App Marketplace API</title>
  <style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2em}</style>
</head>
<body>
  <p><a href="/problems">Problem types</a> · <a href="/swagger">API reference</a></p>
  <h1><code>${code}</code></h1>
  <p>HTTP ${status} ${statusTitle(status)}, sent as <code>application/problem+json</code> with <code>"code": "${code}"</code>.</p>
  <h2>What it means</h2>
  <p>${prose(meaning)}</p>
  <h2>What to do</h2>
  <p>${prose(action)}</p>
  <p>Every problem also carries <code>detail</code> (what went wrong with this request) and <code>requestId</code> (quote it to support).</p>
</body>
</html>
`.toString();
}

function problemIndex(): string {
  return html`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Problem types · App Marketplace API</title>
  <style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem}</style>
</head>
<body>
  <h1>Problem types</h1>
  <p>Every error the API answers is RFC 9457 <code>application/problem+json</code> with one of these codes.</p>
  <ul>${ERROR_CODES.map((code) => html`<li><a href="${`/problems/${code}`}"><code>${code}</code></a> (${PROBLEM_TYPES[code].status}): ${prose(PROBLEM_TYPES[code].meaning)}</li>`)}</ul>
</body>
</html>
`.toString();
}

/** `app` is the finished application: the document describes its routes. */
export function apiDocsApi(ctx: AppContext, app: () => AnyElysia) {
  let document: object | undefined;
  const htmlPage = (set: { headers: Record<string, string | number> }, body: string) => {
    set.headers['content-type'] = 'text/html; charset=utf-8';
    set.headers['content-security-policy'] = PROBLEM_CSP;
    set.headers['cache-control'] = 'public, max-age=3600';
    return body;
  };
  const problemPages = new Elysia({ prefix: '/problems' })
    .get('', ({ set }) => htmlPage(set, problemIndex()), { detail: { hide: true } })
    .get(
      '/:code',
      ({ params, set }) => {
        if (!(ERROR_CODES as string[]).includes(params.code)) throw notFound('Problem type');
        return htmlPage(set, problemPage(params.code as ErrorCode));
      },
      { params: t.Object({ code: t.String({ maxLength: 64 }) }), detail: { hide: true } },
    );
  const swagger = new Elysia({ prefix: '/swagger' })
    .get('/json', () => (document ??= buildApiDocument(app(), { publicUrl: ctx.config.publicUrl, maxBodyBytes: ctx.config.maxBodyBytes })), {
      detail: { hide: true },
    })
    .get(
      '',
      ({ set }) => {
        set.headers['content-type'] = 'text/html; charset=utf-8';
        set.headers['content-security-policy'] = CSP;
        return PAGE;
      },
      { detail: { hide: true } },
    )
    .get(
      '/assets/:name',
      ({ params, set }) => {
        const asset = ASSETS.get(params.name);
        if (!asset) throw notFound('Asset');
        set.headers['content-type'] = asset.type;
        set.headers['cache-control'] = 'public, max-age=86400';
        return Bun.file(asset.file);
      },
      { detail: { hide: true } },
    );
  return new Elysia().use(swagger).use(problemPages);
}
