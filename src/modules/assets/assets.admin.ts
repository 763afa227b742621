import { Elysia } from 'elysia';
import { notFound } from '../../http/problem.ts';
import type { ConsoleKit } from '../console/console-plugin.ts';
import { parseAssetFile } from './asset-files.ts';
import { readAsset, unpublishedCopyResponse } from './asset-store.ts';

/**
 * Console: any stored copy, for signed-in admins, at `/admin/mirror/<sha256>.<ext>`. Review pages
 * show listing images from here only (a copy waiting for review is not public), so a reviewer's
 * browser never asks a developer's server for anything.
 */
export function assetsAdmin(kit: ConsoleKit) {
  return new Elysia().use(kit.plugin).get(
    '/admin/mirror/:file',
    kit.page(async (c) => {
      const file = parseAssetFile(c.params.file ?? '');
      const asset = file && (await readAsset(c.em, file.sha256, file.extension, { admin: true }));
      if (!file || !asset) throw notFound('Stored image');
      return unpublishedCopyResponse(asset, kit.security);
    }),
    { capability: 'view' },
  );
}
