import { Migration } from '@mikro-orm/migrations';

/**
 * `record_install_batch_alone`: an install batch as one statement on its own (autocommit), one round
 * trip where BEGIN, the batch and COMMIT took three (D222). It is `record_install_batch` (D189)
 * refusing, with SQLSTATE MK001 (which undoes the statement), the batches that need more of their
 * transaction: one that must send the roll-up (none waits) and one with a repeat install that may
 * reactivate its installer. The caller then writes that batch as before, in a transaction.
 */
export class Migration20261231000001_install_batch_alone extends Migration {
  override up(): void {
    this.addSql(`
      create function record_install_batch_alone(slugs text[], keys text[], daily boolean[], users text[], networks text[], budget int)
      returns table (ord bigint, app_id uuid, installed_at timestamptz, counted boolean)
      language plpgsql as $$
      declare
        written record;
      begin
        for written in select * from record_install_batch(slugs, keys, daily, users, networks, budget) loop
          if not written.roll_up_waiting or (written.installed_at is not null and written.counted is null and not daily[written.ord]) then
            raise exception 'this install batch needs a transaction of its own' using errcode = 'MK001';
          end if;
          ord := written.ord;
          app_id := written.app_id;
          installed_at := written.installed_at;
          counted := written.counted;
          return next;
        end loop;
      end $$`);
  }
}
