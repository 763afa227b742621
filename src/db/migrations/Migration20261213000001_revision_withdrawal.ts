import { Migration } from '@mikro-orm/migrations';

/** A developer may withdraw a pending revision; the row stays, as WITHDRAWN, so its history is kept. */
export class Migration20261213000001_revision_withdrawal extends Migration {
  override up(): void {
    this.addSql(`alter table app_revisions drop constraint app_revisions_status_check`);
    this.addSql(
      `alter table app_revisions add constraint app_revisions_status_check check (status in ('PENDING', 'APPROVED', 'REJECTED', 'WITHDRAWN'))`,
    );
  }
}
