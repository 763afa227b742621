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

/** A statement's text with `$n` placeholders, and the parameter each `$n` takes. */
interface Template {
  text: string;
  names: string[];
}

/**
 * Compiled templates by source text. Texts come from the code (values never enter them), so there
 * are a few hundred at most; the bound only guards against a caller that builds them from data.
 */
const templates = new Map<string, Template>();
const TEMPLATES_KEPT = 1_000;

function compile(source: string): Template {
  const names: string[] = [];
  const text = source.replace(TOKENS, (token, name: string | undefined) => {
    if (name === undefined) return token;
    let position = names.indexOf(name);
    if (position === -1) position = names.push(name) - 1;
    return `$${position + 1}`;
  });
  if (templates.size >= TEMPLATES_KEPT) templates.clear();
  const template = { text, names };
  templates.set(source, template);
  return template;
}

/** Compiled once per text (the hot reads and installs run the same few statements thousands of times a second). */
export function namedSql(source: string, params: Record<string, unknown>): CompiledSql {
  const { text, names } = templates.get(source) ?? compile(source);
  const values = names.map((name) => {
    if (!(name in params)) throw new Error(`SQL parameter :${name} has no value`);
    return params[name];
  });
  return { text, values };
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
