import { Migration20261125000001_identity } from './Migration20261125000001_identity.ts';
import { Migration20261125000002_apps } from './Migration20261125000002_apps.ts';
import { Migration20261125000003_rate_limits } from './Migration20261125000003_rate_limits.ts';
import { Migration20261125000004_catalogue_listing } from './Migration20261125000004_catalogue_listing.ts';
import { Migration20261126000005_catalogue_order } from './Migration20261126000005_catalogue_order.ts';
import { Migration20261126000006_emails } from './Migration20261126000006_emails.ts';
import { Migration20261127000001_release_draft_slugs } from './Migration20261127000001_release_draft_slugs.ts';
import { Migration20261127000002_install_budget } from './Migration20261127000002_install_budget.ts';
import { Migration20261128000001_admin_console } from './Migration20261128000001_admin_console.ts';
import { Migration20261128000002_listing_snapshots } from './Migration20261128000002_listing_snapshots.ts';
import { Migration20261129000001_mail_claims } from './Migration20261129000001_mail_claims.ts';
import { Migration20261129000002_asset_mirror } from './Migration20261129000002_asset_mirror.ts';
import { Migration20261130000001_webhooks } from './Migration20261130000001_webhooks.ts';
import { Migration20261130000002_review_replies } from './Migration20261130000002_review_replies.ts';
import { Migration20261201000001_catalogue_performance } from './Migration20261201000001_catalogue_performance.ts';
import { Migration20261203000001_install_watermark } from './Migration20261203000001_install_watermark.ts';
import { Migration20261217000001_bulk_app_triggers } from './Migration20261217000001_bulk_app_triggers.ts';
import { Migration20261217000002_counter_changes } from './Migration20261217000002_counter_changes.ts';
import { Migration20261217000003_app_search } from './Migration20261217000003_app_search.ts';

/** Listed explicitly, in order, so the same set runs from source under Bun with no file discovery. */
export const migrations = [
  { name: 'Migration20261125000001_identity', class: Migration20261125000001_identity },
  { name: 'Migration20261125000002_apps', class: Migration20261125000002_apps },
  { name: 'Migration20261125000003_rate_limits', class: Migration20261125000003_rate_limits },
  { name: 'Migration20261125000004_catalogue_listing', class: Migration20261125000004_catalogue_listing },
  { name: 'Migration20261126000005_catalogue_order', class: Migration20261126000005_catalogue_order },
  { name: 'Migration20261126000006_emails', class: Migration20261126000006_emails },
  { name: 'Migration20261127000001_release_draft_slugs', class: Migration20261127000001_release_draft_slugs },
  { name: 'Migration20261127000002_install_budget', class: Migration20261127000002_install_budget },
  { name: 'Migration20261128000001_admin_console', class: Migration20261128000001_admin_console },
  { name: 'Migration20261128000002_listing_snapshots', class: Migration20261128000002_listing_snapshots },
  { name: 'Migration20261129000001_mail_claims', class: Migration20261129000001_mail_claims },
  { name: 'Migration20261129000002_asset_mirror', class: Migration20261129000002_asset_mirror },
  { name: 'Migration20261130000001_webhooks', class: Migration20261130000001_webhooks },
  { name: 'Migration20261130000002_review_replies', class: Migration20261130000002_review_replies },
  { name: 'Migration20261201000001_catalogue_performance', class: Migration20261201000001_catalogue_performance },
  { name: 'Migration20261203000001_install_watermark', class: Migration20261203000001_install_watermark },
  { name: 'Migration20261217000001_bulk_app_triggers', class: Migration20261217000001_bulk_app_triggers },
  { name: 'Migration20261217000002_counter_changes', class: Migration20261217000002_counter_changes },
  { name: 'Migration20261217000003_app_search', class: Migration20261217000003_app_search },
];
