import { Elysia, t } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { AuthPlugin } from '../identity/auth.ts';
import { notFound } from '../../http/problem.ts';
import { MEDIA_TYPES, problems, Uuid } from '../../http/schemas.ts';
import { accessProblems, authorizeApp, callerOf } from '../teams/access.ts';
import { parseAssetFile } from './asset-files.ts';
import { readAsset, unpublishedCopyResponse } from './asset-store.ts';

/**
 * Mirrored images, by content address. The name is the SHA-256 of the bytes, so a response never
 * changes: caches may keep it for a year without asking again, and the ETag is the hash itself.
 * Publicly, only the copies a live listing shows exist: a copy nobody approved (a draft's, one
 * waiting for review, a suspended listing's) is 404 here. Its owner reads it under their app.
 */
export const ASSET_HEADERS = {
  'cache-control': 'public, max-age=31536000, immutable',
  'x-content-type-options': 'nosniff',
};

const FileParam = t.String({ description: '`<sha256>.png` or `<sha256>.jpg`' });

export function assetsApi(ctx: AppContext, auth: AuthPlugin) {
  const publicAssets = new Elysia({ prefix: '/assets', tags: ['Assets'] }).get(
    '/:file',
    async ({ params, request }) => {
      const file = parseAssetFile(params.file);
      const asset = file && (await readAsset(ctx.orm.em.fork(), file.sha256, file.extension, { public: true }));
      if (!file || !asset) throw notFound('Asset');
      const etag = `"${file.sha256}"`;
      const headers = { ...ASSET_HEADERS, etag };
      if (
        request.headers
          .get('if-none-match')
          ?.split(/\s*,\s*/)
          .includes(etag)
      )
        return new Response(null, { status: 304, headers });
      return new Response(asset.bytes, { headers: { ...headers, 'content-type': asset.contentType } });
    },
    {
      params: t.Object({ file: FileParam }),
      response: {
        200: t.Any({ description: 'The image bytes, exactly as reviewed', [MEDIA_TYPES]: ['image/png', 'image/jpeg'] }),
        304: t.Any({ description: 'Not modified: the copy named in `If-None-Match` is current' }),
        ...problems('NOT_FOUND'),
      },
      detail: {
        summary: 'A mirrored listing image',
        description:
          'Images of live (approved, listed) apps are served from here, by the SHA-256 of their bytes, exactly as they were when reviewed. Immutable: `Cache-Control: public, max-age=31536000, immutable`. A copy no live listing shows is 404; its owner reads it at `GET /api/dev/apps/{id}/assets/{file}`.',
      },
    },
  );

  const ownerAssets = new Elysia({ prefix: '/api/dev/apps', tags: ['Developer apps'] }).use(auth).get(
    '/:id/assets/:file',
    async ({ principal, params }) => {
      const em = ctx.orm.em.fork();
      const file = parseAssetFile(params.file);
      // The one check of who may read an app (personal owner, or a team member by role): anyone else learns nothing.
      const app = await authorizeApp(em, callerOf(principal), params.id, 'read');
      const asset = file && (await readAsset(em, file.sha256, file.extension, { appId: app.id }));
      if (!file || !asset) throw notFound('Asset');
      return unpublishedCopyResponse(asset);
    },
    {
      apiKey: 'APP_READ',
      params: t.Object({ id: Uuid, file: FileParam }),
      response: {
        200: t.Any({ description: 'The image bytes', [MEDIA_TYPES]: ['image/png', 'image/jpeg'] }),
        ...problems(...accessProblems('read')),
      },
      detail: {
        summary: 'A stored copy of one of your app’s images',
        description:
          'Needs APP_READ. Any copy your app’s asset checks stored (the `mirrorUrl` file name of a check) or its approvals published, in any state: what reviewers see before it is public. Not cached (`Cache-Control: no-store`).',
      },
    },
  );

  return new Elysia().use(publicAssets).use(ownerAssets);
}
