import { Migration } from '@mikro-orm/migrations';

/**
 * `record_installs` takes the install batch's locks itself and says whether a roll-up already
 * waits (D189): a batch is then one statement between BEGIN and COMMIT, where it was four (the
 * watermark's lock, the roll-up's enqueue, the budget's locks, the insert). What it does is
 * `recordInstalls`' to say (`installs.service.ts`); the lock keys are `stats.service.ts`'
 * (INSTALLS_LOCK) and the waiting job is pg-boss's own row for `stats.installs` (`jobs/queues.ts`).
 */
export class Migration20261221000001_install_locks_in_function extends Migration {
  override up(): void {
    this.addSql('drop function record_installs(text[], text[], boolean[], text[], text[], int)');
    this.addSql(`
      create function record_installs(slugs text[], keys text[], daily boolean[], users text[], networks text[], budget int)
      returns table (ord bigint, app_id uuid, installed_at timestamptz, counted boolean, roll_up_waiting boolean)
      language plpgsql as $$
      #variable_conflict use_column
      declare
        budget_key text;
        waiting boolean;
      begin
        -- Held from before the insert to the commit: the roll-up sees where committed installs end.
        perform pg_advisory_xact_lock_shared(hashtext('install-roll-up'));
        -- One network's installs of one app take turns, in key order so concurrent batches cannot deadlock.
        for budget_key in
          select distinct x.slug || ' ' || x.network from unnest(slugs, networks) as x(slug, network) where x.network is not null order by 1
        loop
          perform pg_advisory_xact_lock(hashtext('install-budget'), hashtext(budget_key));
        end loop;
        -- A roll-up not yet started counts this batch: it takes the watermark's lock only after this commits.
        waiting := exists (select 1 from pgboss.job j
                           where j.name = 'stats.installs' and j.policy = 'short' and j.state = 'created' and coalesce(j.singleton_key, '') = 'installs');
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
        select b.ord, b.app_id, coalesce(n.installed_at, i.installed_at), n.counted, waiting
        from budgeted b
        left join inserted n on n.app_id = b.app_id and n.installer = b.installer
        left join installs i on n.app_id is null and i.app_id = b.app_id and i.installer = b.installer;
      end $$`);
  }
}
