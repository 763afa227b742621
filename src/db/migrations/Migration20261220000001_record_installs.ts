import { Migration } from '@mikro-orm/migrations';

/**
 * The install batch's statement as a PL/pgSQL function, so each connection plans it once and then
 * reuses the plan: planning it took 0.8 ms of the 2.3–3.0 ms PostgreSQL spent on a batch of 21 installs
 * (D187). What it does is `recordInstalls`' to say (`installs.service.ts`); visibility is the
 * catalogue's rule as of this migration (`catalogue-rows.ts`, VISIBLE).
 */
export class Migration20261220000001_record_installs extends Migration {
  override up(): void {
    this.addSql(`
      create function record_installs(slugs text[], keys text[], daily boolean[], users text[], networks text[], budget int)
      returns table (ord bigint, app_id uuid, installed_at timestamptz, counted boolean)
      language plpgsql as $$
      #variable_conflict use_column
      begin
        return query
        with input as (
          select * from unnest(slugs, keys, daily, users, networks) with ordinality as x(slug, key, daily, platform_user_id, network, ord)),
        resolved as (
          select x.ord, x.platform_user_id, x.network, a.id as app_id,
                 case when x.daily then x.key || ':' || to_char(now() at time zone 'utc', 'YYYY-MM-DD') else x.key end as installer
          from input x join apps a on a.slug = x.slug join developers d on d.id = a.developer_id left join teams tm on tm.id = a.team_id
          where a.status = 'APPROVED' and not (case when a.team_id is null then d.status = 'SUSPENDED' else tm.suspended_at is not null end)),
        budgeted as (
          select r.*, r.network is null or (
            select count(*) from installs i
            where i.app_id = r.app_id and i.source_network = r.network and i.counted
              and i.installed_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc')
            + row_number() over (partition by r.app_id, r.network order by r.ord) <= budget as counted
          from resolved r),
        inserted as (
          insert into installs as i (app_id, installer, platform_user_id, source_network, counted)
          -- In key order, so two batches inserting the same installers wait for each other without a deadlock.
          select b.app_id, b.installer, b.platform_user_id, b.network, b.counted from budgeted b order by b.app_id, b.installer
          on conflict (app_id, installer) do nothing
          returning i.app_id, i.installer, i.installed_at, i.counted)
        select b.ord, b.app_id, coalesce(n.installed_at, i.installed_at), n.counted
        from budgeted b
        left join inserted n on n.app_id = b.app_id and n.installer = b.installer
        left join installs i on n.app_id is null and i.app_id = b.app_id and i.installer = b.installer;
      end $$`);
  }
}
