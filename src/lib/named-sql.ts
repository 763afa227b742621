import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import type { SqlTransaction } from './sql-writer.ts';

/**
 * SQL with named parameters: `:name` in the text, values in an object. Compiled to PostgreSQL's
 * `$n` placeholders (a name used twice is one parameter), so a statement's parameters cannot drift
 * out of order as the text around them changes. Quoted literals and `::type` casts are left alone.
 */
export interface CompiledSql {
  text: string;
  values: unknown[];
}

// A single-quoted literal (skipped as it is), or a `:name` not preceded by another colon.
const TOKENS = /'(?:[^']|'')*'|(?<!:):([A-Za-z_][A-Za-z0-9_]*)/g;

export function namedSql(text: string, params: Record<string, unknown>): CompiledSql {
  const positions = new Map<string, number>();
  const values: unknown[] = [];
  const compiled = text.replace(TOKENS, (token, name: string | undefined) => {
    if (name === undefined) return token;
    if (!(name in params)) throw new Error(`SQL parameter :${name} has no value`);
    let position = positions.get(name);
    if (position === undefined) {
      values.push(params[name]);
      position = values.length;
      positions.set(name, position);
    }
    return `$${position}`;
  });
  return { text: compiled, values };
}

/** A timestamp as a driver hands it back: `pg` (as configured here) gives text, Bun's client a Date. */
export type SqlTime = string | Date;

/** Where named SQL runs: an entity manager's connection (its transaction's, inside one), or a transaction of Bun's client. */
export type SqlTarget = EntityManager | SqlTransaction;

/**
 * Runs named-parameter SQL on `target`, with real bind parameters: `em.execute` inlines values and
 * cannot put a null in an array.
 */
export async function executeNamed<Row>(target: SqlTarget, text: string, params: Record<string, unknown>): Promise<Row[]> {
  const statement = namedSql(text, params);
  if ('executeSql' in target) return target.query<Row>(statement);
  const result = await target.getKysely().executeQuery<Row>(CompiledQuery.raw(statement.text, statement.values));
  return result.rows;
}
