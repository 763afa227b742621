import { Elysia, t } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import { ApiError } from '../../http/problem.ts';
import { problems } from '../../http/schemas.ts';
import { executeNamed } from '../../lib/named-sql.ts';

const READY_TIMEOUT_MS = 1500;

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: Timer | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthApi(ctx: AppContext) {
  return new Elysia({ tags: ['Health'] })
    .get('/livez', () => ({ status: 'ok' as const }), {
      response: t.Object({ status: t.Literal('ok') }, { description: 'The process is up' }),
      detail: { summary: 'The process is up (does not touch the database)' },
    })
    .get(
      '/readyz',
      async () => {
        try {
          // One round trip on each pool: the ORM's and pg-boss's own (listing the queues would count their jobs).
          // The probe itself is a statement on each pool (D106: no table behind it).
          await withTimeout(
            Promise.all([executeNamed(ctx.orm.em.fork(), 'select 1', {}), ctx.boss.getDb().executeSql('select 1')]),
            READY_TIMEOUT_MS,
          );
        } catch {
          throw new ApiError(503, 'UNAVAILABLE', 'The database or the job queue is not reachable', undefined, { 'retry-after': '5' });
        }
        return { status: 'ready' as const };
      },
      {
        response: { 200: t.Object({ status: t.Literal('ready') }, { description: 'Ready to serve requests' }), ...problems('UNAVAILABLE') },
        detail: { summary: 'The database and the job queue are reachable' },
      },
    );
}
