import { Migration } from '@mikro-orm/migrations';

/**
 * Uninstalls and reinstalls are appended to `install_events`, one numbered act per installer after
 * its install (odd: uninstall, even: reinstall). The unique number makes each act a compare-and-set:
 * two concurrent uninstalls of one installer cannot both append. `counted` says whether the act moves
 * the counters (the installer counted, and an anonymous uninstall within its network's daily budget).
 * `app_stats` keeps `active_installs` and `uninstall_count` beside `install_count`, and
 * `app_daily_stats` the per-day roll-up the daily analytics read: deltas per UTC day, so a series
 * sums a few hundred narrow rows instead of counting installs. Both follow the installs watermark
 * (installs up to it are counted here), and events get a watermark of their own.
 */
export class Migration20261215000001_uninstalls extends Migration {
  override up(): void {
    this.addSql(`
      create table install_events (
        id bigint generated always as identity primary key,
        app_id uuid not null,
        installer text not null,
        seq integer not null check (seq > 0),
        kind text not null check (kind in ('UNINSTALL', 'REINSTALL') and (kind = 'UNINSTALL') = (seq % 2 = 1)),
        counted boolean not null,
        source_network text,
        occurred_at timestamptz not null default now(),
        foreign key (app_id, installer) references installs (app_id, installer) on delete cascade
      )`);
    this.addSql(`create unique index install_events_installer_seq_key on install_events (app_id, installer, seq)`);
    this.addSql(`
      create index install_events_budget_idx on install_events (app_id, source_network, occurred_at)
        where source_network is not null and kind = 'UNINSTALL'`);
    this.addSql(`insert into stats_watermarks (name, last_id) values ('install_events', 0)`);

    this.addSql(`
      alter table app_stats add column active_installs integer not null default 0,
        add column uninstall_count integer not null default 0`);
    this.addSql(`
      update app_stats s set active_installs = n.count
      from (select app_id, count(*)::int as count from installs
            where counted and id <= (select last_id from stats_watermarks where name = 'installs') group by app_id) n
      where n.app_id = s.app_id`);
    this.addSql(`create index app_stats_active_idx on app_stats (active_installs desc, app_id desc)`);

    this.addSql(`
      create table app_daily_stats (
        app_id uuid not null references apps (id) on delete cascade,
        day date not null,
        new_installs integer not null default 0,
        reinstalls integer not null default 0,
        uninstalls integer not null default 0,
        reviews integer not null default 0,
        rating_sum integer not null default 0,
        primary key (app_id, day)
      )`);
    // The console's marketplace-wide chart sums a day across apps.
    this.addSql(`create index app_daily_stats_day_idx on app_daily_stats (day)`);
    this.addSql(`
      insert into app_daily_stats (app_id, day, new_installs)
      select app_id, (installed_at at time zone 'utc')::date, count(*)::int from installs
      where counted and id <= (select last_id from stats_watermarks where name = 'installs') group by 1, 2`);
    this.addSql(`
      insert into app_daily_stats (app_id, day, reviews, rating_sum)
      select app_id, (created_at at time zone 'utc')::date, count(*)::int, sum(rating)::int from reviews where not hidden group by 1, 2
      on conflict (app_id, day) do update set reviews = excluded.reviews, rating_sum = excluded.rating_sum`);
  }
}
