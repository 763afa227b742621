import { Elysia, t } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import { notFound } from '../../http/problem.ts';
import { MEDIA_TYPES, problems } from '../../http/schemas.ts';
import { parseAssetFile } from './asset-files.ts';
import { readAsset } from './asset-store.ts';

/**
 * Mirrored images, by content address. The name is the SHA-256 of the bytes, so a response never
 * changes: caches may keep it for a year without asking again, and the ETag is the hash itself.
 */
export const ASSET_HEADERS = {
  'cache-control': 'public, max-age=31536000, immutable',
  'x-content-type-options': 'nosniff',
};

export function assetsApi(ctx: AppContext) {
  return new Elysia({ prefix: '/assets', tags: ['Assets'] }).get(
    '/:file',
    async ({ params, request }) => {
      const file = parseAssetFile(params.file);
      const asset = file && (await readAsset(ctx.orm.em.fork(), file.sha256, file.extension));
      if (!file || !asset) throw notFound('Asset');
      const etag = `"${file.sha256}"`;
      const headers = { ...ASSET_HEADERS, etag };
      if (request.headers.get('if-none-match')?.split(/\s*,\s*/).includes(etag)) return new Response(null, { status: 304, headers });
      return new Response(asset.bytes, { headers: { ...headers, 'content-type': asset.contentType } });
    },
    {
      params: t.Object({ file: t.String({ description: '`<sha256>.png` or `<sha256>.jpg`' }) }),
      response: {
        200: t.Any({ description: 'The image bytes, exactly as reviewed', [MEDIA_TYPES]: ['image/png', 'image/jpeg'] }),
        304: t.Any({ description: 'Not modified: the copy named in `If-None-Match` is current' }),
        ...problems('NOT_FOUND'),
      },
      detail: {
        summary: 'A mirrored listing image',
        description:
          'Images of approved listings are served from here, by the SHA-256 of their bytes, exactly as they were when reviewed. Immutable: `Cache-Control: public, max-age=31536000, immutable`.',
      },
    },
  );
}
