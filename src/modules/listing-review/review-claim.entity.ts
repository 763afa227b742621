import { defineEntity, p } from '@mikro-orm/postgresql';
import { Admin } from '../admin-accounts/admin.entity.ts';

/**
 * Who reviews what, until when (`review-claims.ts`). Written only by the claims' atomic statements;
 * the entity is for reading which claims are live.
 */
const ReviewClaimSchema = defineEntity({
  name: 'ReviewClaim',
  tableName: 'review_claims',
  properties: {
    /** `app:<id>` or `revision:<id>`. */
    subject: p.text().primary(),
    admin: () => p.manyToOne(Admin).deleteRule('cascade'),
    claimedAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});

export class ReviewClaim extends ReviewClaimSchema.class {}
ReviewClaimSchema.setClass(ReviewClaim);
