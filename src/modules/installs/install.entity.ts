import { defineEntity, p } from '@mikro-orm/postgresql';

/**
 * One installer's install of an app (unique per app and installer key, `installs.service.ts`).
 * Installs are written by atomic SQL under the install budget; the entity serves cold reads.
 */
const InstallSchema = defineEntity({
  name: 'Install',
  tableName: 'installs',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    appId: p.uuid(),
    installer: p.string(),
    platformUserId: p.string().nullable(),
    installedAt: p.datetime(),
    /** False for an install past the address's daily budget: kept, not counted. */
    counted: p.boolean().default(true),
    sourceNetwork: p.string().nullable(),
  },
});

export class Install extends InstallSchema.class {}
InstallSchema.setClass(Install);
