import { t, type Static } from 'elysia';
import { Integer } from '../../http/schemas.ts';
import { AppStatusSchema } from '../apps/apps.model.ts';

export const ANALYTICS_DAYS = 30;

export const AppAnalytics = t.Object(
  {
    installCount: Integer(),
    reviewCount: Integer(),
    averageRating: t.Number({ description: '0 when there are no reviews' }),
    status: AppStatusSchema,
    featured: t.Boolean(),
    installsByDay: t.Array(t.Object({ date: t.String({ format: 'date', description: 'UTC day' }), count: Integer() }), {
      description: `New installs on each of the last ${ANALYTICS_DAYS} UTC days (today included), oldest first; days without installs are 0`,
    }),
  },
  { description: "An app's installs and reviews" },
);
export type AppAnalytics = Static<typeof AppAnalytics>;
