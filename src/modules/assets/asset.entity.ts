import { defineEntity, p } from '@mikro-orm/postgresql';

/**
 * A stored copy of an image, named by its content. Written only by `storeAsset` (one atomic
 * insert-or-renew) and collected by `asset-gc.ts`; the entity is for cold reads that name a copy
 * (its extension), and never loads the bytes unless asked.
 */
const AssetSchema = defineEntity({
  name: 'Asset',
  tableName: 'assets',
  properties: {
    sha256: p.text().primary(),
    extension: p.text(),
    contentType: p.text(),
    byteSize: p.integer(),
    bytes: p.blob().lazy(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** Renewed whenever a check stores the same bytes again: the garbage collector's grace period counts from here. */
    storedAt: p.datetime().onCreate(() => new Date()),
  },
});

export class Asset extends AssetSchema.class {}
AssetSchema.setClass(Asset);
