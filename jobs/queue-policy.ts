import type { PgBoss, QueuePolicy } from 'pg-boss';
import { namedSql } from '../src/lib/named-sql.ts';

/**
 * pg-boss refuses to change a queue's policy after creation: every job row carries the policy it
 * was sent under, and each policy's uniqueness rule is a partial index over that column. So a
 * changed policy is migrated here, in one transaction that holds the queue row (no job can be sent
 * meanwhile): the waiting jobs the new policy would have refused at send time are cancelled (the
 * later duplicates of a singleton key), the rest are stamped with the new policy, and the queue
 * switches. Active jobs finish under the rules they started with.
 */

/** The job states among `created` and `retry` whose singleton keys a policy keeps unique, and whether per state. */
const UNIQUE_WHILE_WAITING: Record<string, { states: string[]; perState: boolean }> = {
  standard: { states: [], perState: false },
  singleton: { states: [], perState: false },
  short: { states: ['created'], perState: false },
  exclusive: { states: ['created', 'retry'], perState: false },
  stately: { states: ['created', 'retry'], perState: true },
};

export class QueuePolicyError extends Error {
  override name = 'QueuePolicyError';
}

/** Returns the policy the queue had, or null when it already had `policy`. */
export async function migrateQueuePolicy(boss: PgBoss, schema: string, name: string, policy: QueuePolicy): Promise<string | null> {
  const rule = UNIQUE_WHILE_WAITING[policy];
  if (!rule) throw new QueuePolicyError(`Queue ${name}: migrating to the ${policy} policy is not supported`);
  const db = boss.getDb();
  if (!db.beginTransaction) throw new QueuePolicyError('the pg-boss database adapter cannot open a transaction');
  const tx = await db.beginTransaction();
  const execute = (text: string, params: Record<string, unknown>) => {
    const statement = namedSql(text, params);
    return tx.db.executeSql(statement.text, statement.values);
  };
  try {
    const { rows } = await execute(`select policy from ${schema}.queue where name = :name for update`, { name });
    const previous = (rows[0]?.policy as string | undefined) ?? null;
    if (previous === null || previous === policy) {
      await tx.commit();
      return null;
    }
    if (rule.states.length > 0) {
      await execute(
        `with ranked as (
           select id, row_number() over (
             partition by coalesce(singleton_key, '')${rule.perState ? ', state' : ''} order by created_on, id) as n
           from ${schema}.job where name = :name and state = any(:states::${schema}.job_state[]))
         update ${schema}.job j set state = 'cancelled', completed_on = now()
         from ranked r where j.name = :name and j.id = r.id and r.n > 1`,
        { name, states: rule.states },
      );
    }
    await execute(`update ${schema}.job set policy = :policy where name = :name and state in ('created', 'retry')`, { name, policy });
    await execute(`update ${schema}.queue set policy = :policy, updated_on = now() where name = :name`, { name, policy });
    await tx.commit();
    return previous;
  } catch (error) {
    await tx.rollback();
    throw error;
  }
}
