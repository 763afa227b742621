import type { App, DataHandling, Permission, Screenshot } from './app.entity.ts';
import type { OwnerAppView, PublicAppView } from './apps.model.ts';

/**
 * The one mapping from stored app data to its JSON views. Entity reads (developer routes)
 * and raw SQL reads (the public catalogue) both produce an `AppRecord` first.
 */
export interface AppStats {
  installCount: number;
  activeInstalls: number;
  reviewCount: number;
  averageRating: number;
}

export const NO_STATS: AppStats = { installCount: 0, activeInstalls: 0, reviewCount: 0, averageRating: 0 };

export type AppRecord = Pick<
  App,
  'id' | 'slug' | 'name' | 'description' | 'category' | 'environment' | 'status' | 'featured' | 'version' | 'createdAt' | 'updatedAt'
> & {
  longDescription?: string | null;
  longDescriptionHtml?: string | null;
  logoUrl?: string | null;
  bannerUrl?: string | null;
  websiteUrl?: string | null;
  supportUrl?: string | null;
  privacyPolicyUrl?: string | null;
  termsOfServiceUrl?: string | null;
  oauthClientId?: string | null;
  screenshots: Screenshot[];
  permissions?: Permission[] | null;
  dataHandling?: DataHandling | null;
};

const iso = (value: Date | string | null | undefined) => (value ? new Date(value).toISOString() : null);

function commonView(app: AppRecord, stats: AppStats) {
  return {
    id: app.id,
    slug: app.slug,
    name: app.name,
    description: app.description,
    longDescription: app.longDescription ?? null,
    longDescriptionHtml: app.longDescriptionHtml ?? null,
    category: app.category,
    environment: app.environment,
    logoUrl: app.logoUrl ?? null,
    bannerUrl: app.bannerUrl ?? null,
    websiteUrl: app.websiteUrl ?? null,
    supportUrl: app.supportUrl ?? null,
    privacyPolicyUrl: app.privacyPolicyUrl ?? null,
    termsOfServiceUrl: app.termsOfServiceUrl ?? null,
    oauthClientId: app.oauthClientId ?? null,
    screenshots: [...app.screenshots].sort((a, b) => a.order - b.order).map((s) => ({ url: s.url, caption: s.caption ?? null, order: s.order })),
    permissions: app.permissions?.map((p) => ({ scope: p.scope, label: p.label, reason: p.reason })) ?? null,
    dataHandling: app.dataHandling ?? null,
    status: app.status,
    featured: app.featured,
    installCount: Number(stats.installCount),
    activeInstalls: Number(stats.activeInstalls),
    reviewCount: Number(stats.reviewCount),
    averageRating: Number(stats.averageRating),
    version: app.version,
    createdAt: iso(app.createdAt)!,
    updatedAt: iso(app.updatedAt)!,
  };
}

export function toPublicAppView(
  app: AppRecord,
  stats: AppStats,
  developer: { name: string; companyName?: string | null; websiteUrl?: string | null },
  publisher: PublicAppView['publisher'],
): PublicAppView {
  return {
    ...commonView(app, stats),
    developer: { name: developer.name, companyName: developer.companyName ?? null, websiteUrl: developer.websiteUrl ?? null },
    publisher,
  };
}

export function toOwnerAppView(
  app: App,
  stats: AppStats,
  extra: Pick<OwnerAppView, 'assetChecks' | 'pendingRevision' | 'review' | 'team'>,
): OwnerAppView {
  return {
    ...commonView(app, stats),
    submittedAt: iso(app.submittedAt),
    reviewedAt: iso(app.reviewedAt),
    rejectionReason: app.rejectionReason ?? null,
    reviewNotes: app.reviewNotes ?? null,
    assetChecks: extra.assetChecks,
    pendingRevision: extra.pendingRevision,
    review: extra.review,
    team: extra.team,
  };
}
