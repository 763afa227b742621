import { Migration } from '@mikro-orm/migrations';

/**
 * Owners disable admins (`disabled_at`), and a second-factor reset issues a one-time enrolment
 * code (only its SHA-256 is kept, with an expiry) without which the next enrolment is refused.
 */
export class Migration20261211000002_admin_disable_and_enrolment_codes extends Migration {
  override up(): void {
    this.addSql(`alter table admins add column disabled_at timestamptz`);
    this.addSql(`alter table admins add column totp_enrolment_code_hash text`);
    this.addSql(`alter table admins add column totp_enrolment_code_expires_at timestamptz`);
  }
}
