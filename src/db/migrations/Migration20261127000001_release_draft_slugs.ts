import { Migration } from '@mikro-orm/migrations';

/**
 * Only slugs that were ever public stay reserved. Before this, a deleted or renamed draft kept
 * its slug forever; those reservations (deleted apps' slugs and the old names of never-approved
 * apps) are given back.
 */
export class Migration20261127000001_release_draft_slugs extends Migration {
  override up(): void {
    this.addSql(`
      delete from app_slugs s
      where s.app_id is null
         or exists (select 1 from apps a where a.id = s.app_id and a.first_approved_at is null and a.slug <> s.slug)`);
    // Every app delete looked for its slugs by scanning the whole table.
    this.addSql('create index app_slugs_app_id_idx on app_slugs (app_id)');
  }
}
