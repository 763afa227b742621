import type { App, DataHandling, Permission, Screenshot } from './app.entity.ts';
import type { OwnerAppView, PublicAppView } from './apps.model.ts';

/**
 * The one mapping from stored app data to its JSON views. Entity reads (developer routes)
 * and raw SQL reads (the public catalogue) both produce an `AppRecord` (a card's `CardRecord`) first.
 */
export interface AppStats {
  installCount: number;
  activeInstalls: number;
  reviewCount: number;
  averageRating: number;
}

export const NO_STATS: AppStats = { installCount: 0, activeInstalls: 0, reviewCount: 0, averageRating: 0 };

/** What a listing card is built from; its times are Dates (entities) or the API's ISO text (the catalogue's SQL). */
export type CardRecord = Pick<App, 'id' | 'slug' | 'name' | 'description' | 'category' | 'environment' | 'status' | 'featured' | 'version'> & {
  createdAt: Date | string;
  updatedAt: Date | string;
  logoUrl?: string | null;
  bannerUrl?: string | null;
  websiteUrl?: string | null;
  supportUrl?: string | null;
  privacyPolicyUrl?: string | null;
  termsOfServiceUrl?: string | null;
  oauthClientId?: string | null;
};

export type AppRecord = CardRecord & {
  longDescription?: string | null;
  longDescriptionHtml?: string | null;
  screenshots: Screenshot[];
  permissions?: Permission[] | null;
  dataHandling?: DataHandling | null;
};

/** A stored time as the API shows it; a string is already that form (the catalogue's SQL writes it, D209). */
const iso = (value: Date | string | null | undefined) => (value == null ? null : typeof value === 'string' ? value : value.toISOString());

/**
 * The fields of a listing's card, in the order every view shows them. Each view is this literal
 * spread once into its own: built by spreading view into view (and dropping a page's fields with a
 * rest pattern), a card cost eight times the time and twice the garbage (D209).
 */
function cardFields(app: CardRecord, stats: AppStats) {
  return {
    id: app.id,
    slug: app.slug,
    name: app.name,
    description: app.description,
    category: app.category,
    environment: app.environment,
    logoUrl: app.logoUrl ?? null,
    bannerUrl: app.bannerUrl ?? null,
    websiteUrl: app.websiteUrl ?? null,
    supportUrl: app.supportUrl ?? null,
    privacyPolicyUrl: app.privacyPolicyUrl ?? null,
    termsOfServiceUrl: app.termsOfServiceUrl ?? null,
    oauthClientId: app.oauthClientId ?? null,
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

/** What a listing's page shows beyond its card. */
function pageFields(app: AppRecord) {
  return {
    longDescription: app.longDescription ?? null,
    longDescriptionHtml: app.longDescriptionHtml ?? null,
    screenshots: [...app.screenshots].sort((a, b) => a.order - b.order).map((s) => ({ url: s.url, caption: s.caption ?? null, order: s.order })),
    permissions: app.permissions?.map((p) => ({ scope: p.scope, label: p.label, reason: p.reason })) ?? null,
    dataHandling: app.dataHandling ?? null,
  };
}

/** Who the public sees behind an app: as its developer, and as its publisher. */
export interface PublicOwner {
  developer: { name: string; companyName?: string | null; websiteUrl?: string | null };
  publisher: PublicAppView['publisher'];
}

/** A listing card, as lists and searches show it. */
export function toPublicAppSummary(app: CardRecord, stats: AppStats, owner: PublicOwner): Omit<PublicAppView, keyof ReturnType<typeof pageFields>> {
  return { ...cardFields(app, stats), developer: developerView(owner), publisher: owner.publisher };
}

export function toPublicAppView(app: AppRecord, stats: AppStats, owner: PublicOwner): PublicAppView {
  return { ...cardFields(app, stats), ...pageFields(app), developer: developerView(owner), publisher: owner.publisher };
}

const developerView = ({ developer }: PublicOwner) => ({
  name: developer.name,
  companyName: developer.companyName ?? null,
  websiteUrl: developer.websiteUrl ?? null,
});

export function toOwnerAppView(
  app: App,
  stats: AppStats,
  extra: Pick<OwnerAppView, 'assetChecks' | 'pendingRevision' | 'review' | 'team'>,
): OwnerAppView {
  return {
    ...cardFields(app, stats),
    ...pageFields(app),
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
