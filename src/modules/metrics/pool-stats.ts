import type { MikroORM } from '@mikro-orm/postgresql';
import { waitingAtGate } from '../../lib/connection-wait.ts';

/**
 * The ORM's connection pool as `pg` counts it. The only code that knows which pool backs the
 * ORM: point it at another pool and the metrics follow.
 */
export interface PoolStats {
  /** Connections open (in use or idle). */
  open: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
  max: number;
}

export async function readPoolStats(orm: MikroORM): Promise<PoolStats> {
  const pool = await orm.em.getConnection().getNativeClient();
  return { open: pool.totalCount, idle: pool.idleCount, waiting: waitingAtGate(pool) ?? pool.waitingCount, max: pool.options.max ?? 10 };
}
