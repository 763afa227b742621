import { Migration } from '@mikro-orm/migrations';

/** The app developer's public answer to a review: at most one per review, gone with it. */
export class Migration20261130000002_review_replies extends Migration {
  override up(): void {
    this.addSql(`
      create table review_replies (
        review_id uuid primary key references reviews (id) on delete cascade,
        body text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`);
  }
}
