import { t, type Static } from 'elysia';
import { AppStatusSchema } from '../apps/apps.model.ts';

export const ANALYTICS_DAYS = 30;

export const AppAnalytics = t.Object({
  installCount: t.Integer(),
  reviewCount: t.Integer(),
  averageRating: t.Number({ description: '0 when there are no reviews' }),
  status: AppStatusSchema,
  featured: t.Boolean(),
  installsByDay: t.Array(t.Object({ date: t.String({ format: 'date', description: 'UTC day' }), count: t.Integer() }), {
    description: `New installs on each of the last ${ANALYTICS_DAYS} UTC days (today included), oldest first; days without installs are 0`,
  }),
});
export type AppAnalytics = Static<typeof AppAnalytics>;
