import { defineEntity, p } from '@mikro-orm/postgresql';

export const DEVELOPER_STATUSES = ['PENDING_VERIFICATION', 'VERIFIED', 'SUSPENDED'] as const;
export type DeveloperStatus = (typeof DEVELOPER_STATUSES)[number];

const DeveloperSchema = defineEntity({
  name: 'Developer',
  tableName: 'developers',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    platformUserId: p.string(),
    name: p.string(),
    email: p.string(),
    companyName: p.string().nullable(),
    websiteUrl: p.string().nullable(),
    bio: p.text().nullable(),
    status: p.enum(DEVELOPER_STATUSES).default('PENDING_VERIFICATION'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export class Developer extends DeveloperSchema.class {}
DeveloperSchema.setClass(Developer);
