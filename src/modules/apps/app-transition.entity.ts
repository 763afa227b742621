import { defineEntity, p } from '@mikro-orm/postgresql';
import { APP_STATUSES } from './app.entity.ts';

/** One row per status change or featuring: who, when, from, to, at which version, and why. */
const AppTransitionSchema = defineEntity({
  name: 'AppTransition',
  tableName: 'app_transitions',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    appId: p.uuid(),
    actor: p.string(),
    action: p.string(),
    fromStatus: p.enum(APP_STATUSES),
    toStatus: p.enum(APP_STATUSES),
    version: p.integer(),
    reason: p.text().nullable(),
    /** The listing as it was decided (kept on rejection, for the diff when it comes back). */
    listing: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class AppTransition extends AppTransitionSchema.class {}
AppTransitionSchema.setClass(AppTransition);
