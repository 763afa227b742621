import { Elysia } from 'elysia';
import { dirname, join } from 'node:path';
import { notFound } from '../../http/problem.ts';

/**
 * The OpenAPI UI at `/swagger`, served from the installed `swagger-ui-dist` package (never a CDN,
 * so it works offline and runs only code this build pinned) under a CSP without inline script.
 * The document itself, `/swagger/json`, comes from `@elysiajs/openapi` (see `app.ts`).
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

export function apiDocsApi() {
  return new Elysia({ prefix: '/swagger' })
    .get('', ({ set }) => {
      set.headers['content-type'] = 'text/html; charset=utf-8';
      set.headers['content-security-policy'] = CSP;
      return PAGE;
    }, { detail: { hide: true } })
    .get('/assets/:name', ({ params, set }) => {
      const asset = ASSETS.get(params.name);
      if (!asset) throw notFound('Asset');
      set.headers['content-type'] = asset.type;
      set.headers['cache-control'] = 'public, max-age=86400';
      return Bun.file(asset.file);
    }, { detail: { hide: true } });
}
