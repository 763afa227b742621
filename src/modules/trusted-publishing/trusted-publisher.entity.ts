import { defineEntity, p } from '@mikro-orm/postgresql';
import { App } from '../apps/app.entity.ts';
import { Developer } from '../developers/developer.entity.ts';

/**
 * A CI workflow allowed to publish one app: tokens from `issuer` whose repository, workflow file
 * and (when set) deployment environment match are traded for a short-lived key to that app.
 */
const TrustedPublisherSchema = defineEntity({
  name: 'TrustedPublisher',
  tableName: 'trusted_publishers',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    app: () => p.manyToOne(App).deleteRule('cascade'),
    /** Who registered it: the exchanged keys are theirs, so they end with that developer's rights. */
    createdBy: () => p.manyToOne(Developer).deleteRule('cascade'),
    issuer: p.string(),
    /** `owner/name`, compared case-insensitively as GitHub does. */
    repository: p.string(),
    /** The workflow's file name under `.github/workflows/`. */
    workflow: p.string(),
    environment: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class TrustedPublisher extends TrustedPublisherSchema.class {}
TrustedPublisherSchema.setClass(TrustedPublisher);
