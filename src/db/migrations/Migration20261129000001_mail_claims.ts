import { Migration } from '@mikro-orm/migrations';

/**
 * Who is sending a message right now: a claim is taken before SMTP and dropped when the `emails`
 * record is written, so no transaction stays open while SMTP talks and no two attempts send one
 * message id (see src/modules/notifications/mail-delivery.ts).
 */
export class Migration20261129000001_mail_claims extends Migration {
  override up(): void {
    this.addSql(`
      create table email_claims (
        message_id text primary key,
        job_id text not null,
        attempt integer not null,
        claimed_until timestamptz not null,
        created_at timestamptz not null default now()
      )`);
    // Retention deletes delivered mail by age.
    this.addSql(`create index emails_sent_at_idx on emails (sent_at)`);
  }
}
