import type { AppStatus, Category, DataHandling, Environment, Permission, Screenshot } from '../apps/app.entity.ts';
import { toPublicAppSummary, toPublicAppView, type AppRecord, type PublicOwner } from '../apps/app-view.ts';
import { PUBLISHED_ASSETS_COLUMN, withPublishedAssets, type PublishedAssets } from '../assets/asset-publication.ts';
import type { PublicAppView } from '../apps/apps.model.ts';
import type { PublicAppSummary } from './catalogue.model.ts';

/**
 * The public catalogue's rows and their mapping to JSON, through the shared `app-view.ts`.
 * Lists select the summary columns only: a listing card needs no long description, its HTML or
 * screenshots, and those were most of a list page's bytes.
 */

/**
 * Whoever answers for the app is suspended: its team for a team app (its members' standing does
 * not matter), else its developer. Needs `OWNER_JOINS`.
 */
export const OWNER_SUSPENDED = `(case when a.team_id is null then d.status = 'SUSPENDED' else tm.suspended_at is not null end)`;

/** An app is public when it is APPROVED and its owner (developer or team) is not suspended. */
export const VISIBLE = `a.status = 'APPROVED' and not ${OWNER_SUSPENDED}`;

export const OWNER_JOINS = 'join developers d on d.id = a.developer_id left join teams tm on tm.id = a.team_id';

/** A timestamp as ISO-8601 UTC text, as the API shows it: cheaper to read than the driver's Date parsing. */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const SUMMARY_COLUMNS = `a.id, a.slug, a.name, a.description, a.category, a.environment, a.logo_url, a.banner_url,
  a.website_url, a.support_url, a.privacy_policy_url, a.terms_of_service_url, a.oauth_client_id, a.status, a.featured,
  a.version, ${iso('a.created_at')} as created_at, ${iso('a.updated_at')} as updated_at,
  ${iso('a.first_approved_at')} as first_approved_at, s.install_count, s.active_installs, s.review_count, s.average_rating,
  d.name as developer_name, d.company_name as developer_company_name, d.website_url as developer_website_url,
  ${OWNER_SUSPENDED} as owner_suspended, tm.name as team_name, tm.website_url as team_website_url,
  tm.verified_domain as team_verified_domain, ${PUBLISHED_ASSETS_COLUMN}`;

export const COLUMNS = {
  summary: SUMMARY_COLUMNS,
  full: `${SUMMARY_COLUMNS}, a.long_description, a.long_description_html, a.screenshots, a.permissions, a.data_handling`,
};

/** The joins every public row needs (every app has a stats row, created with it by a trigger). */
export const JOINS = `${OWNER_JOINS} join app_stats s on s.app_id = a.id`;

export interface PublicAppRow {
  id: string;
  slug: string;
  name: string;
  description: string;
  long_description?: string | null;
  long_description_html?: string | null;
  category: Category;
  environment: Environment;
  logo_url: string | null;
  banner_url: string | null;
  website_url: string | null;
  support_url: string | null;
  privacy_policy_url: string | null;
  terms_of_service_url: string | null;
  oauth_client_id: string | null;
  screenshots?: Screenshot[];
  permissions?: Permission[] | null;
  data_handling?: DataHandling | null;
  status: AppStatus;
  featured: boolean;
  version: number;
  created_at: string;
  updated_at: string;
  first_approved_at: string | null;
  install_count: number;
  active_installs: number;
  review_count: number;
  average_rating: string | number;
  developer_name: string;
  developer_company_name: string | null;
  developer_website_url: string | null;
  owner_suspended: boolean;
  /** The owning team's, for a team app (null for a personal one). */
  team_name: string | null;
  team_website_url: string | null;
  team_verified_domain: string | null;
  /** The reviewed copies of the listing's images that its last approval published. */
  published_assets: PublishedAssets | null;
}

/** Not selected for a card: one shared empty list (the mapping copies before it sorts). */
const NO_SCREENSHOTS: Screenshot[] = [];

/** The row as the shared mapping takes it, its images shown from the mirror: exactly the bytes the reviewer saw. */
function recordOf(row: PublicAppRow): AppRecord {
  return withPublishedAssets(
    {
      id: row.id,
      slug: row.slug,
      name: row.name,
      description: row.description,
      longDescription: row.long_description,
      longDescriptionHtml: row.long_description_html,
      category: row.category,
      environment: row.environment,
      logoUrl: row.logo_url,
      bannerUrl: row.banner_url,
      websiteUrl: row.website_url,
      supportUrl: row.support_url,
      privacyPolicyUrl: row.privacy_policy_url,
      termsOfServiceUrl: row.terms_of_service_url,
      oauthClientId: row.oauth_client_id,
      screenshots: row.screenshots ?? NO_SCREENSHOTS,
      permissions: row.permissions,
      dataHandling: row.data_handling,
      status: row.status,
      featured: row.featured,
      version: row.version,
      // Already the API's ISO text (`iso` above): no Date is made to print it again.
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    },
    row.published_assets,
  );
}

const statsOf = (row: PublicAppRow) => ({
  installCount: row.install_count,
  activeInstalls: row.active_installs,
  reviewCount: row.review_count,
  averageRating: Number(row.average_rating),
});

/** A team app's developer is the team: its listings outlive the people who made them. */
const ownerOf = (row: PublicAppRow): PublicOwner =>
  row.team_name !== null
    ? {
        developer: { name: row.team_name, companyName: row.team_name, websiteUrl: row.team_website_url },
        publisher: { name: row.team_name, websiteUrl: row.team_website_url, verifiedDomain: row.team_verified_domain },
      }
    : {
        developer: { name: row.developer_name, companyName: row.developer_company_name, websiteUrl: row.developer_website_url },
        publisher: { name: row.developer_name, websiteUrl: row.developer_website_url, verifiedDomain: null },
      };

export const toPublicView = (row: PublicAppRow): PublicAppView => toPublicAppView(recordOf(row), statsOf(row), ownerOf(row));

export const toSummary = (row: PublicAppRow): PublicAppSummary => toPublicAppSummary(recordOf(row), statsOf(row), ownerOf(row));
