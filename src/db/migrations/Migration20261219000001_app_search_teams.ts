import { Migration } from '@mikro-orm/migrations';

/**
 * `app_search` (issue 22) was written beside teams (issue 17) and uninstalls (issue 18): here it
 * learns both. A team app is public while its team is not suspended, whatever its developer's
 * status (a personal app still follows its developer); and the install count a search ranks by is
 * the active installs, as `sort=installs` is.
 */
const VISIBLE = `a.status = 'APPROVED' and (case when a.team_id is null then d.status <> 'SUSPENDED' else t.suspended_at is null end)`;

export class Migration20261219000001_app_search_teams extends Migration {
  override up(): void {
    this.addSql(`
      create or replace function app_search_insert() returns trigger language plpgsql as $$
      begin
        insert into app_search (app_id, search_vector, lower_name, visible, category, environment, featured)
        select a.id, a.search_vector, lower(a.name), ${VISIBLE}, a.category, a.environment, a.featured
        from inserted_apps a join developers d on d.id = a.developer_id left join teams t on t.id = a.team_id;
        return null;
      end $$`);
    this.addSql(`
      create or replace function app_search_update() returns trigger language plpgsql as $$
      begin
        update app_search s set search_vector = a.search_vector, lower_name = lower(a.name), visible = ${VISIBLE},
          category = a.category, environment = a.environment, featured = a.featured
        from apps a join developers d on d.id = a.developer_id left join teams t on t.id = a.team_id
        where a.id = new.id and s.app_id = new.id;
        return null;
      end $$`);
    // A transfer moves an app between owners: its visibility follows the new one.
    this.addSql(`drop trigger app_search_update on apps`);
    this.addSql(`
      create trigger app_search_update after update of name, description, status, category, environment, featured, developer_id, team_id on apps
      for each row execute function app_search_update()`);
    // A developer's status decides only their personal apps.
    this.addSql(`
      create or replace function app_search_developer() returns trigger language plpgsql as $$
      begin
        update app_search s set visible = a.status = 'APPROVED' and new.status <> 'SUSPENDED'
        from apps a where a.developer_id = new.id and a.team_id is null and s.app_id = a.id;
        return null;
      end $$`);
    this.addSql(`
      create function app_search_team() returns trigger language plpgsql as $$
      begin
        update app_search s set visible = a.status = 'APPROVED' and new.suspended_at is null
        from apps a where a.team_id = new.id and s.app_id = a.id;
        return null;
      end $$`);
    this.addSql(`
      create trigger app_search_team after update of suspended_at on teams
      for each row when (old.suspended_at is distinct from new.suspended_at) execute function app_search_team()`);
    this.addSql(`
      create or replace function app_search_installs() returns trigger language plpgsql as $$
      begin
        update app_search s set install_count = n.active_installs
        from changed_stats n where s.app_id = n.app_id and s.install_count <> n.active_installs;
        return null;
      end $$`);
    this.addSql(`
      update app_search s set visible = ${VISIBLE}, install_count = coalesce(st.active_installs, 0)
      from apps a join developers d on d.id = a.developer_id left join teams t on t.id = a.team_id
        left join app_stats st on st.app_id = a.id
      where s.app_id = a.id`);
  }
}
