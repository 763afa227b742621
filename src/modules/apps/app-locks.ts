import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Value } from '@sinclair/typebox/value';
import { notFound } from '../../http/problem.ts';
import { Uuid } from '../../http/schemas.ts';
import { App } from './app.entity.ts';

/**
 * Finding an app the way each caller names it. Every change to an app happens under its row
 * lock, taken through one of these.
 */

// A developer's app is found and locked through `teams/access.ts` (`lockAppFor`), the one check of who may act on it.

/**
 * An app as admins name it (the CLI, the console): by id or by its current slug, locked for
 * the rest of the transaction when `lock` is set. A slug may itself look like a UUID, so both
 * are tried then.
 */
export async function findAppByRef(em: EntityManager, ref: string, options: { lock?: boolean } = {}): Promise<App> {
  const where = Value.Check(Uuid, ref) ? { $or: [{ id: ref.toLowerCase() }, { slug: ref }] } : { slug: ref };
  const app = await em.findOne(App, where, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!app) throw notFound('App');
  return app;
}

export const lockAppByRef = (tx: EntityManager, ref: string) => findAppByRef(tx, ref, { lock: true });
