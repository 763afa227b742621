import { Migration } from '@mikro-orm/migrations';

/**
 * Revision versions never repeat for an app: each app counts the versions it gave out, and a new
 * revision continues from there instead of starting again at 1, so a decision naming the version a
 * reviewer saw cannot land on a later revision. Existing revisions are renumbered the same way
 * (each one's versions follow those of the app's revisions before it); a reviewer holding a page
 * of a renumbered pending revision is refused as stale and shown the current version.
 */
export class Migration20261210000001_revision_versions extends Migration {
  override up(): void {
    this.addSql(`alter table apps add column last_revision_version integer not null default 0`);
    this.addSql(`
      update app_revisions r set version = r.version + earlier.shift
      from (select id, coalesce(sum(version) over (partition by app_id order by created_at, id
                                                   rows between unbounded preceding and 1 preceding), 0) as shift
            from app_revisions) earlier
      where earlier.id = r.id and earlier.shift > 0`);
    this.addSql(`
      update apps a set last_revision_version = r.last
      from (select app_id, max(version) as last from app_revisions group by app_id) r
      where r.app_id = a.id`);
    this.addSql(`create unique index app_revisions_app_id_version_key on app_revisions (app_id, version)`);
  }
}
