import type { EntityManager } from '@mikro-orm/postgresql';
import { MIRRORED_FORMATS, type MirroredFormat } from './asset-files.ts';

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
  await tx.execute(
    `insert into assets (sha256, extension, content_type, byte_size, bytes) values (?, ?, ?, ?, ?)
     on conflict (sha256) do update set stored_at = now()`,
    [sha256, extension, contentType, bytes.byteLength, Buffer.from(bytes)],
  );
  return { sha256, extension };
}

export interface AssetContent {
  contentType: string;
  bytes: Uint8Array;
}

export async function readAsset(em: EntityManager, sha256: string, extension: string): Promise<AssetContent | null> {
  const [row] = await em.execute<{ content_type: string; bytes: Buffer }[]>(
    'select content_type, bytes from assets where sha256 = ? and extension = ?',
    [sha256, extension],
  );
  return row ? { contentType: row.content_type, bytes: new Uint8Array(row.bytes) } : null;
}
