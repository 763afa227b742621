import { Migration } from '@mikro-orm/migrations';

/**
 * `record_installs`' statement is planned once per connection, as D187 meant: under PostgreSQL's
 * own choice (`plan_cache_mode = auto`) PL/pgSQL planned it again on every call, 0.75 ms of planning
 * against 0.56 ms of running for one install (D193). Its generic plan is the same plan: the slugs,
 * installers and networks are looked up by their indexes whatever the values.
 */
export class Migration20261222000001_install_batch_generic_plan extends Migration {
  override up(): void {
    this.addSql(`alter function record_installs(text[], text[], boolean[], text[], text[], int) set plan_cache_mode = force_generic_plan`);
  }
}
