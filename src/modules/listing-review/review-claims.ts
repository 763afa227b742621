import { sql, type EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import { ReviewClaim } from './review-claim.entity.ts';
import type { Claim } from '../../../views/admin/listing-review.ts';
export type { Claim } from '../../../views/admin/listing-review.ts';
// Raw SQL here is atomic claims and leases (D106): a reviewer's claim is taken, renewed or released in one statement;
// reading which claims are live goes through the ReviewClaim entity.

/**
 * Who is reviewing what, so two reviewers do not decide the same item at once. Claims are
 * explicit: "Start review" claims an item for 10 minutes (the open page renews the reviewer's own
 * claim every minute), "Release" and a decision end it; merely opening a page claims nothing. A
 * claim held by someone else is shown, not enforced: another reviewer may take it over, and the
 * version check on decisions keeps a late decision from landing on a listing nobody reviewed.
 */
export const CLAIM_MINUTES = 10;

export const claimSubject = (kind: 'app' | 'revision', id: string) => `${kind}:${id}`;

/** The live claims on these subjects. */
export async function claimsOn(em: EntityManager, subjects: readonly string[]): Promise<Map<string, Claim>> {
  if (subjects.length === 0) return new Map();
  // Past the identity map: claims change under the request (taken over, released, run out).
  const claims = await em.find(
    ReviewClaim,
    { subject: { $in: [...subjects] }, expiresAt: { $gt: sql.now() } },
    { populate: ['admin'], fields: ['subject', 'expiresAt', 'admin.email'], disableIdentityMap: true },
  );
  return new Map(
    claims.map((claim) => [
      claim.subject,
      { subject: claim.subject, adminId: claim.admin.id, adminEmail: claim.admin.email, expiresAt: claim.expiresAt },
    ]),
  );
}

/**
 * Claims (or renews) a subject for the admin unless another admin holds a live claim; with
 * `takeOver` it is taken whoever holds it. Returns the claim as it stands afterwards.
 */
export async function claim(em: EntityManager, subject: string, adminId: string, options: { takeOver?: boolean } = {}): Promise<Claim> {
  await executeNamed(
    em,
    `insert into review_claims (subject, admin_id, claimed_at, expires_at) values (:subject, :adminId, now(), now() + make_interval(mins => :minutes))
     on conflict (subject) do update set admin_id = excluded.admin_id, claimed_at = excluded.claimed_at, expires_at = excluded.expires_at
     where review_claims.admin_id = excluded.admin_id or review_claims.expires_at <= now() or :takeOver`,
    { subject, adminId, minutes: CLAIM_MINUTES, takeOver: options.takeOver ?? false },
  );
  const current = (await claimsOn(em, [subject])).get(subject);
  if (!current) throw new Error(`claim on ${subject} vanished`);
  return current;
}

/** Extends the admin's own live claim (the open page's heartbeat); anyone else's, or none, is left alone. */
export async function renewOwnClaim(em: EntityManager, subject: string, adminId: string): Promise<Claim | undefined> {
  await executeNamed(
    em,
    `update review_claims set expires_at = now() + make_interval(mins => :minutes) where subject = :subject and admin_id = :adminId and expires_at > now()`,
    { minutes: CLAIM_MINUTES, subject, adminId },
  );
  return (await claimsOn(em, [subject])).get(subject);
}

/** "Release": ends the admin's own claim only. */
export async function releaseOwnClaim(em: EntityManager, subject: string, adminId: string): Promise<void> {
  await executeNamed(em, 'delete from review_claims where subject = :subject and admin_id = :adminId', { subject, adminId });
}

/** A decided item needs no claim. */
export async function releaseClaim(em: EntityManager, subject: string): Promise<void> {
  await executeNamed(em, 'delete from review_claims where subject = :subject', { subject });
}
