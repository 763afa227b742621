import { Migration } from '@mikro-orm/migrations';

/**
 * Notification e-mails, one row per message id, written once the message was accepted by SMTP
 * or kept in the dev outbox: the row is what stops a retried job from sending a message twice,
 * and without `SMTP_URL` it is the outbox itself.
 */
export class Migration20261126000006_emails extends Migration {
  override up(): void {
    this.addSql(`
      create table emails (
        message_id text primary key,
        kind text not null,
        to_address text not null,
        subject text not null,
        html text not null,
        text_body text not null,
        transport text not null check (transport in ('smtp', 'outbox')),
        app_id uuid references apps (id) on delete set null,
        developer_id uuid references developers (id) on delete cascade,
        created_at timestamptz not null default now(),
        sent_at timestamptz not null
      )`);
    this.addSql(`create index emails_created_at_idx on emails (created_at desc)`);
    this.addSql(`create index emails_developer_id_idx on emails (developer_id)`);
    this.addSql(`create index emails_app_id_idx on emails (app_id)`);
  }
}
