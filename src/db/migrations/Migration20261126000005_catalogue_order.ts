import { Migration } from '@mikro-orm/migrations';

/**
 * Lets the public list walk an index in the order it shows (installs, rating, newest) and stop
 * after one page, instead of sorting every approved app on each request. That needs a stats row
 * for every app, so one is created with the app (zeros until the rollup job first counts).
 */
export class Migration20261126000005_catalogue_order extends Migration {
  override up(): void {
    this.addSql(`insert into app_stats (app_id) select id from apps on conflict do nothing`);
    this.addSql(`
      create function apps_create_stats() returns trigger language plpgsql as $$
      begin
        insert into app_stats (app_id) values (new.id) on conflict do nothing;
        return new;
      end $$`);
    this.addSql(`create trigger apps_create_stats after insert on apps for each row execute function apps_create_stats()`);
    this.addSql(`create index app_stats_installs_idx on app_stats (install_count desc, app_id desc)`);
    // The Bayesian rating of catalogue.service.ts (prior: five reviews of 3 stars); the expressions must match.
    this.addSql(`
      create index app_stats_rating_idx on app_stats
        (((15 + rating_sum)::numeric / (5 + review_count)) desc, install_count desc, app_id desc)`);
    this.addSql(`
      create index apps_newest_idx on apps (coalesce(first_approved_at, created_at) desc, id desc)
        where status = 'APPROVED'`);
  }
}
