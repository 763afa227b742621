import { defineEntity, p } from '@mikro-orm/postgresql';
import { Asset } from './asset.entity.ts';

/**
 * The verdict of one check of one image a listing names (by field and URL), and the copy it
 * stored, if any. Written only by the check job (`asset-checks.service.ts`), whose conditional
 * upsert never replaces a stored copy; the entity is for the owner's and reviewers' cold reads.
 */
const AssetCheckSchema = defineEntity({
  name: 'AssetCheck',
  tableName: 'asset_checks',
  properties: {
    appId: p.uuid().primary(),
    /** `logoUrl`, `bannerUrl` or `screenshots[i]`. */
    field: p.text().primary(),
    url: p.text().primary(),
    ok: p.boolean(),
    // Only ever read from rows (the job writes them in SQL): a missing value is null, never undefined.
    format: p.text().strictNullable(),
    width: p.integer().strictNullable(),
    height: p.integer().strictNullable(),
    problems: p.json<string[]>(),
    /** The stored copy of the bytes checked (null: none stored). */
    copy: () => p.manyToOne(Asset).fieldName('sha256').nullable(),
    checkedAt: p.datetime(),
  },
});

export class AssetCheck extends AssetCheckSchema.class {}
AssetCheckSchema.setClass(AssetCheck);
