import { Migration } from '@mikro-orm/migrations';

/**
 * `record_install_batch`: an install batch in one statement between BEGIN and COMMIT (D189). It
 * takes the batch's locks, says whether a roll-up already waits, and inserts through
 * `record_installs` (D187), where four round trips did this before. What it does is `recordInstalls`'
 * to say (`installs.service.ts`); the lock keys are `stats.service.ts`' (INSTALLS_LOCK) and the
 * waiting job is pg-boss's own row for `stats.installs` (`jobs/queues.ts`).
 */
export class Migration20261221000001_install_locks_in_function extends Migration {
  override up(): void {
    this.addSql(`
      create function record_install_batch(slugs text[], keys text[], daily boolean[], users text[], networks text[], budget int)
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
        select r.ord, r.app_id, r.installed_at, r.counted, waiting
        from record_installs(slugs, keys, daily, users, networks, budget) r;
      end $$`);
  }
}
