import { afterAll, beforeAll, expect, test } from 'bun:test';
import { Glob } from 'bun';
import { RawQueryFragment } from '@mikro-orm/core';
import { rawKey } from '../../src/lib/raw-keys.ts';
import { Developer } from '../../src/modules/developers/developer.entity.ts';
import { createTestApp, registerDeveloper, type TestApp } from '../support/harness.ts';

/** SQL used as a MikroORM object key must survive a garbage collection between building the filter and running it (D195). */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

test('a key made by rawKey is still known to the ORM after a collection; one SQL text, one fragment', () => {
  const filters = Array.from({ length: 200 }, (_, i) => ({ [rawKey('lower(email)')]: `someone-${i}@example.com` }));
  Bun.gc(true);
  const unknown = filters.filter((filter) => !RawQueryFragment.isKnownFragmentSymbol(Object.getOwnPropertySymbols(filter)[0]!));
  expect(unknown).toHaveLength(0);
  expect(rawKey('lower(email)')).toBe(rawKey('lower(email)'));
  expect(rawKey((alias) => `${alias}.status`)).toBe(rawKey((alias) => `${alias}.status`));
});

const byEmail = (email: string) => ({ [rawKey('lower(email)')]: email.toLowerCase() });

test('a lookup by e-mail built before a collection and run after it finds that developer only, not every row', async () => {
  const wanted = await registerDeveloper(t);
  await registerDeveloper(t);
  // Built in a function of its own and collected across awaits, as a request's filter would be.
  const filter = byEmail(wanted.email.toUpperCase());
  await Bun.sleep(1);
  Bun.gc(true);
  await Bun.sleep(1);
  const found = await t.ctx.orm.em.fork().find(Developer, filter, { fields: ['id'], disableIdentityMap: true });
  expect(found.map((developer) => developer.id)).toEqual([wanted.id]);
});

test("a filter's raw SQL survives a collection between building the query and compiling it (D198)", async () => {
  // The ORM turns each raw-keyed field into a key of its own while it processes the filter; that
  // key's Symbol was collected here every time, and the SQL came out without its condition. A few
  // rounds suffice: a full collection of the suite's heap takes ~0.4 s.
  for (let i = 0; i < 5; i += 1) {
    const query = t.ctx.orm.em
      .fork()
      .createQueryBuilder(Developer, 'd')
      .select('id')
      .where({ [rawKey('lower(email)')]: `someone-${i}@example.com` });
    await Bun.sleep(0);
    Bun.gc(true);
    expect(query.getFormattedQuery()).toContain(`where lower(email) = 'someone-${i}@example.com'`);
  }
});

test('the service refuses to start when the ORM loaded before the registry that keeps its keys', () => {
  const started = Bun.spawnSync(
    [
      process.execPath,
      '-e',
      `import '@mikro-orm/core'; const { createOrm } = await import('./src/db/orm.ts'); await createOrm('postgres://127.0.0.1:1/none', undefined, { max: 1, connectionWaitMs: 1 });`,
    ],
    { cwd: `${import.meta.dir}/../..`, stderr: 'pipe' },
  );
  expect(started.exitCode).not.toBe(0);
  expect(started.stderr.toString()).toContain('The ORM was loaded before the raw SQL fragment registry');
});

test('no raw SQL is an object key in the service except through rawKey', async () => {
  const offenders: string[] = [];
  for await (const path of new Glob('{src,jobs,views}/**/*.ts').scan('.')) {
    const text = await Bun.file(path).text();
    // A computed key made of raw SQL: `{ [raw(…)]: … }`, `{ [sql.lower(…)]: … }`, `{ [sql\`…\`]: … }`.
    for (const match of text.matchAll(/\[\s*(?:raw|sql)\b[^\]]*\]\s*:/g)) offenders.push(`${path}: ${match[0]}`);
  }
  expect(offenders).toEqual([]);
});
