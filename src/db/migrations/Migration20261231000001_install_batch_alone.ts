import { Migration } from '@mikro-orm/migrations';

/**
 * `record_install_batch_alone`: an install batch as one statement on its own (autocommit), one round
 * trip where BEGIN, the batch and COMMIT took three (D222). It takes `record_install_batch`'s locks
 * (now `lock_install_batch`, shared by both) and inserts only while a roll-up waits, not yet started,
 * to count the batch; without one it writes nothing and answers a single row of `ord` 0, and the
 * caller writes the batch in a transaction that sends the roll-up (D189).
 */
export class Migration20261231000001_install_batch_alone extends Migration {
  override up(): void {
    this.addSql(`
      create function lock_install_batch(slugs text[], networks text[]) returns boolean
      language plpgsql as $$
      declare
        budget_key text;
      begin
        -- Held from before the insert to the commit: the roll-up sees where committed installs end.
        perform pg_advisory_xact_lock_shared(hashtext('install-roll-up'));
        -- One network's installs of one app take turns, in key order so concurrent batches cannot deadlock.
        for budget_key in
          select distinct x.slug || ' ' || x.network from unnest(slugs, networks) as x(slug, network) where x.network is not null order by 1
        loop
          perform pg_advisory_xact_lock(hashtext('install-budget'), hashtext(budget_key));
        end loop;
        -- Whether a roll-up waits, not yet started: it takes the watermark's lock only after this commits, so it counts the batch.
        return exists (select 1 from pgboss.job j
                       where j.name = 'stats.installs' and j.policy = 'short' and j.state = 'created' and coalesce(j.singleton_key, '') = 'installs');
      end $$`);
    this.addSql(`
      create or replace function record_install_batch(slugs text[], keys text[], daily boolean[], users text[], networks text[], budget int)
      returns table (ord bigint, app_id uuid, installed_at timestamptz, counted boolean, roll_up_waiting boolean)
      language plpgsql as $$
      #variable_conflict use_column
      declare
        waiting boolean := lock_install_batch(slugs, networks);
      begin
        return query
        select r.ord, r.app_id, r.installed_at, r.counted, waiting
        from record_installs(slugs, keys, daily, users, networks, budget) r;
      end $$`);
    this.addSql(`
      create function record_install_batch_alone(slugs text[], keys text[], daily boolean[], users text[], networks text[], budget int)
      returns table (ord bigint, app_id uuid, installed_at timestamptz, counted boolean)
      language plpgsql as $$
      #variable_conflict use_column
      begin
        if not lock_install_batch(slugs, networks) then
          return query select 0::bigint, null::uuid, null::timestamptz, null::boolean;
          return;
        end if;
        return query
        select r.ord, r.app_id, r.installed_at, r.counted
        from record_installs(slugs, keys, daily, users, networks, budget) r;
      end $$`);
  }
}
