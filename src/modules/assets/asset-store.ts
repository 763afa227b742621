import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import { OWNER_JOINS, VISIBLE } from '../catalogue/catalogue-rows.ts';
import { MIRRORED_FORMATS, type MirroredFormat } from './asset-files.ts';
// Raw SQL here is an atomic insert-or-nothing of a content-addressed copy, and the hot read that serves it (D106).

/**
 * The default store: bytes in PostgreSQL, so every process serves them and backups hold them.
 * Content-addressed, so storing the same bytes twice keeps one copy (and renews its grace period).
 */
export interface StoredAsset {
  sha256: string;
  extension: string;
}

export const sha256Of = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex');

/** Call inside the transaction that records what refers to the bytes, so the collector cannot take them in between. */
export async function storeAsset(tx: EntityManager, bytes: Uint8Array, format: MirroredFormat): Promise<StoredAsset> {
  const { extension, contentType } = MIRRORED_FORMATS[format];
  const sha256 = sha256Of(bytes);
  await executeNamed(
    tx,
    `insert into assets (sha256, extension, content_type, byte_size, bytes) values (:sha256, :extension, :contentType, :byteSize, :bytes)
     on conflict (sha256) do update set stored_at = now()`,
    { sha256, extension, contentType, byteSize: bytes.byteLength, bytes: Buffer.from(bytes) },
  );
  return { sha256, extension };
}

export interface AssetContent {
  contentType: string;
  bytes: Uint8Array;
}

/** A copy for an owner or an admin only: the stored content type (never the origin's), kept by no cache. */
export const unpublishedCopyResponse = (asset: AssetContent, headers: Record<string, string> = {}) =>
  new Response(asset.bytes, {
    headers: { ...headers, 'content-type': asset.contentType, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
  });

/** Who asks decides which copies exist for them: anyone (`GET /assets`), an app's owner, an admin. */
export type AssetReader = { public: true } | { appId: string } | { admin: true };

/**
 * The public reads only copies a live listing shows (APPROVED, its owner not suspended); an
 * owner reads the copies their app's checks stored or its approvals published (the route has
 * checked that the app is theirs); an admin reads any. Anything else reads as absent.
 */
function readableBy(reader: AssetReader): { sql: string; params: Record<string, string> } {
  if ('admin' in reader) return { sql: '', params: {} };
  if ('appId' in reader) {
    return {
      sql: `and (exists (select 1 from asset_checks c where c.app_id = :readerAppId and c.sha256 = s.sha256)
              or exists (select 1 from published_assets p where p.app_id = :readerAppId and p.sha256 = s.sha256))`,
      params: { readerAppId: reader.appId },
    };
  }
  return {
    sql: `and exists (select 1 from published_assets p join apps a on a.id = p.app_id ${OWNER_JOINS}
                      where p.sha256 = s.sha256 and ${VISIBLE})`,
    params: {},
  };
}

export async function readAsset(em: EntityManager, sha256: string, extension: string, reader: AssetReader): Promise<AssetContent | null> {
  const readable = readableBy(reader);
  const [row] = await executeNamed<{ content_type: string; bytes: Buffer }>(
    em,
    `select s.content_type, s.bytes from assets s where s.sha256 = :sha256 and s.extension = :extension ${readable.sql}`,
    { sha256, extension, ...readable.params },
  );
  return row ? { contentType: row.content_type, bytes: new Uint8Array(row.bytes) } : null;
}
