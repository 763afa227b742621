import { defineEntity, p } from '@mikro-orm/postgresql';
import { Developer } from '../developers/developer.entity.ts';

export const CATEGORIES = [
  'PRODUCTIVITY',
  'UTILITIES',
  'BUSINESS',
  'DEVELOPER_TOOLS',
  'COMMUNICATION',
  'ANALYTICS',
  'AI_ML',
  'FINANCE',
  'EDUCATION',
  'OTHER',
] as const;
export type Category = (typeof CATEGORIES)[number];

export const ENVIRONMENTS = ['localhost', 'staging', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const APP_STATUSES = ['DRAFT', 'PENDING', 'APPROVED', 'REJECTED', 'SUSPENDED'] as const;
export type AppStatus = (typeof APP_STATUSES)[number];

/** Where an app may say it stores data. */
export const DATA_LOCATIONS = ['EU', 'US', 'UK', 'CA', 'AU', 'JP', 'IN', 'BR', 'OTHER'] as const;
export type DataLocation = (typeof DATA_LOCATIONS)[number];

/** A declared scope, stored with the label configured when it was written (what the reviewer approved). */
export interface Permission {
  scope: string;
  label: string;
  reason: string;
}

export interface DataHandling {
  storesUserData: boolean;
  locations: DataLocation[];
  thirdParties: { name: string; purpose: string }[];
  retentionDays: number | null;
}

export interface Screenshot {
  url: string;
  caption: string | null;
  order: number;
}

const AppSchema = defineEntity({
  name: 'App',
  tableName: 'apps',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    /** The creator, or whoever last held it personally; the owner while `teamId` is null. */
    developer: () => p.manyToOne(Developer).deleteRule('cascade'),
    /** The team that owns the app, if any (then its members act on it by role). */
    teamId: p.uuid().nullable(),
    slug: p.string(),
    name: p.string(),
    description: p.text(),
    longDescription: p.text().nullable(),
    /** Rendered from `longDescription` and sanitised on every write, never on read. */
    longDescriptionHtml: p.text().nullable(),
    category: p.enum(CATEGORIES),
    environment: p.enum(ENVIRONMENTS),
    logoUrl: p.string().nullable(),
    bannerUrl: p.string().nullable(),
    websiteUrl: p.string().nullable(),
    supportUrl: p.string().nullable(),
    privacyPolicyUrl: p.string().nullable(),
    termsOfServiceUrl: p.string().nullable(),
    oauthClientId: p.string().nullable(),
    screenshots: p.json<Screenshot[]>().default([]),
    /** Notes for reviewers: visible to the owner and admins only. */
    reviewNotes: p.text().nullable(),
    /** Null: never declared (an app with an OAuth client cannot be submitted so). */
    permissions: p.json<Permission[]>().nullable(),
    dataHandling: p.json<DataHandling>().nullable(),
    status: p.enum(APP_STATUSES).default('DRAFT'),
    featured: p.boolean().default(false),
    /** Bumped by every edit; an admin decision names the version it saw. */
    version: p.integer().default(1),
    submittedAt: p.datetime().nullable(),
    reviewedAt: p.datetime().nullable(),
    firstApprovedAt: p.datetime().nullable(),
    rejectionReason: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export class App extends AppSchema.class {}
AppSchema.setClass(App);
