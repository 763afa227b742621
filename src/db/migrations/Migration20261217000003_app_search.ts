import { Migration } from '@mikro-orm/migrations';

/**
 * `app_search`: what a search needs of an app and nothing more (its text vector, whether the
 * public sees it, the filters, and its install count for ordering the candidates), ~10 times
 * narrower than `apps`, so a common word's thousands of matches are read from a few hundred pages
 * instead of joining three wide tables. Kept by triggers, so no write path has to remember it:
 * apps (inserted in bulk by statement, updated by row), developers (suspension hides their apps)
 * and `app_stats` (the roll-ups' new install counts, by statement).
 */
export class Migration20261217000003_app_search extends Migration {
  override up(): void {
    this.addSql(`
      create table app_search (
        app_id uuid primary key references apps (id) on delete cascade,
        search_vector tsvector not null,
        lower_name text not null,
        visible boolean not null,
        category text not null,
        environment text not null,
        featured boolean not null,
        install_count integer not null default 0
      )`);
    this.addSql(`
      insert into app_search (app_id, search_vector, lower_name, visible, category, environment, featured, install_count)
      select a.id, a.search_vector, lower(a.name), a.status = 'APPROVED' and d.status <> 'SUSPENDED', a.category, a.environment,
             a.featured, coalesce(s.install_count, 0)
      from apps a join developers d on d.id = a.developer_id left join app_stats s on s.app_id = a.id`);
    // Only what the public sees is searched: the partial indexes leave drafts and suspended apps out.
    this.addSql(`create index app_search_vector_idx on app_search using gin (search_vector) where visible`);
    // Covering: a very common word's candidates are found by walking this index alone, most installed first.
    this.addSql(
      `create index app_search_installs_idx on app_search (install_count desc, app_id desc) include (search_vector, lower_name) where visible`,
    );
    this.addSql(`create index app_search_name_idx on app_search (lower_name) where visible`);

    this.addSql(`
      create function app_search_insert() returns trigger language plpgsql as $$
      begin
        insert into app_search (app_id, search_vector, lower_name, visible, category, environment, featured)
        select a.id, a.search_vector, lower(a.name), a.status = 'APPROVED' and d.status <> 'SUSPENDED', a.category, a.environment, a.featured
        from inserted_apps a join developers d on d.id = a.developer_id;
        return null;
      end $$`);
    this.addSql(`
      create trigger app_search_insert after insert on apps
      referencing new table as inserted_apps for each statement execute function app_search_insert()`);
    this.addSql(`
      create function app_search_update() returns trigger language plpgsql as $$
      begin
        update app_search s set search_vector = new.search_vector, lower_name = lower(new.name),
          visible = new.status = 'APPROVED' and d.status <> 'SUSPENDED', category = new.category,
          environment = new.environment, featured = new.featured
        from developers d where d.id = new.developer_id and s.app_id = new.id;
        return null;
      end $$`);
    this.addSql(`
      create trigger app_search_update after update of name, description, status, category, environment, featured, developer_id on apps
      for each row execute function app_search_update()`);
    this.addSql(`
      create function app_search_developer() returns trigger language plpgsql as $$
      begin
        update app_search s set visible = a.status = 'APPROVED' and new.status <> 'SUSPENDED'
        from apps a where a.developer_id = new.id and s.app_id = a.id;
        return null;
      end $$`);
    this.addSql(`
      create trigger app_search_developer after update of status on developers
      for each row when (old.status is distinct from new.status) execute function app_search_developer()`);
    this.addSql(`
      create function app_search_installs() returns trigger language plpgsql as $$
      begin
        update app_search s set install_count = n.install_count
        from changed_stats n where s.app_id = n.app_id and s.install_count <> n.install_count;
        return null;
      end $$`);
    this.addSql(`
      create trigger app_search_installs after update on app_stats
      referencing new table as changed_stats for each statement execute function app_search_installs()`);
  }
}
