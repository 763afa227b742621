import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper, insertManyApps } from '../support/fixtures.ts';
import { bumpCatalogueVersion } from '../../src/modules/catalogue/catalogue-version.ts';
import { SEARCH_CANDIDATES } from '../../src/modules/catalogue/catalogue-search.ts';
import { namedSql, type CompiledSql } from '../../src/lib/named-sql.ts';
import { lookUpWords } from '../../src/modules/catalogue/search-words.ts';

/**
 * Searches read the narrow `app_search` table, which triggers keep equal to what the public sees:
 * visibility (approval, the owner's suspension), names and words, and active installs; a word
 * in more apps than the candidate bound still answers with the most installed of them.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const search = async (words: string) => {
  // Each step below changes the catalogue behind the cache's back (raw SQL), as no service would.
  await bumpCatalogueVersion(t.ctx.orm.em.fork());
  return (await t.call('GET', `/api/apps?search=${encodeURIComponent(words)}&limit=5`)).body;
};

test('a word in more apps than the bound: the total is the bound, exact name first, then the most installed', async () => {
  const developer = await insertDeveloper(t);
  const many = SEARCH_CANDIDATES + 200;
  await insertManyApps(t, developer, 'ubiquitous', many, 'A ubiquitous helper.');
  // Install counts as a roll-up writes them: searches rank by the stats' active installs, as sort=installs does.
  await t.sql(
    `update app_stats s set install_count = substring(a.slug from 12)::int, active_installs = substring(a.slug from 12)::int
     from apps a where a.id = s.app_id and a.slug like 'ubiquitous-%'`,
  );
  const expected = [many, many - 1, many - 2, many - 3, many - 4].map((n) => `ubiquitous-${n}`);
  const slugs = (found: { data: { slug: string }[] }) => found.data.map((app) => app.slug);
  // Without statistics the word's matches come from the GIN index…
  const found = await search('ubiquitous');
  expect(found.pagination.total).toBe(SEARCH_CANDIDATES);
  expect(slugs(found)).toEqual(expected);
  // …with them PostgreSQL knows it is in most apps, and the install-count index is walked instead: same answer.
  await t.sql('analyze app_search');
  const walked = await search('ubiquitous');
  expect(walked.pagination.total).toBe(SEARCH_CANDIDATES);
  expect(slugs(walked)).toEqual(expected);
  // An exact name ranks first however few installs it has.
  expect((await search('ubiquitous 7')).data[0].slug).toBe('ubiquitous-7');
});

test("the search table follows visibility and edits: a suspended developer's apps and renamed words are found no more", async () => {
  const developer = await insertDeveloper(t);
  const app = await insertApp(t, { developerId: developer, name: 'Zanzibar Ledger' });
  expect((await search('zanzibar')).data.map((a: { id: string }) => a.id)).toEqual([app.id]);

  await t.sql(`update developers set status = 'SUSPENDED' where id = ?`, [developer]);
  expect((await search('zanzibar')).data).toEqual([]);
  await t.sql(`update developers set status = 'VERIFIED' where id = ?`, [developer]);
  expect((await search('zanzibar')).data).toHaveLength(1);

  await t.sql(`update apps set name = 'Quokka Ledger', description = 'Quokka Ledger keeps tasks in order.' where id = ?`, [app.id]);
  expect((await search('zanzibar')).data).toEqual([]);
  expect((await search('quokka')).data.map((a: { id: string }) => a.id)).toEqual([app.id]);

  await t.sql(`update apps set status = 'SUSPENDED' where id = ?`, [app.id]);
  expect((await search('quokka')).data).toEqual([]);
  // Nothing drifted: the table holds what a join of the wide tables says.
  expect(
    await t.sql(`select count(*)::int as n from app_search s join apps a on a.id = s.app_id join developers d on d.id = a.developer_id
                 where s.visible <> (a.status = 'APPROVED' and d.status <> 'SUSPENDED') or s.lower_name <> lower(a.name)
                    or s.search_vector <> a.search_vector`),
  ).toEqual([{ n: 0 }]);
});

test('the catalogue reads plan each statement once per connection, whatever its values (D188)', async () => {
  const [row] = await t.ctx.catalogueReaders.next().query<{ mode: string }>(namedSql(`select current_setting('plan_cache_mode') as mode`, {}));
  expect(row?.mode).toBe('force_generic_plan');
});

test('a roll-up rewrites no search row: its words, its GIN entries and the search index stay as they were (D217)', async () => {
  const developer = await insertDeveloper(t);
  const apps = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      insertApp(t, { developerId: developer, name: `Pending List ${i}`, description: 'Tracks sprints, boards, backlogs, releases and reviews.' }),
    ),
  );
  await t.sql('create extension if not exists pgstattuple');
  const ids = `{${apps.map((app) => app.id).join(',')}}`;
  const searchRows = () => t.sql('select xmin::text as version from app_search where app_id = any(?::uuid[]) order by app_id', [ids]);
  const pendingWords = () => t.sql(`select pending_tuples from pgstatginindex('app_search_vector_idx')`);
  const [rowsBefore, pendingBefore] = [await searchRows(), await pendingWords()];
  // Roll-ups as they come: a new active count for the apps, again and again.
  for (let round = 1; round <= 20; round++) {
    await t.sql('update app_stats set active_installs = ? where app_id = any(?::uuid[])', [round, ids]);
  }
  expect(await searchRows()).toEqual(rowsBefore);
  expect(await pendingWords()).toEqual(pendingBefore);
  // The counts still order searches: the last round's, read from the stats rows.
  expect(await search('sprints boards')).toMatchObject({ pagination: { total: 10 } });
  expect(await t.sql('select distinct active_installs from app_stats where app_id = any(?::uuid[])', [ids])).toEqual([{ active_installs: 20 }]);
});

test("a typo's nearest catalogue words are searched for once per word, not once per use of them (D202)", async () => {
  const developer = await insertDeveloper(t);
  await insertApp(t, { developerId: developer, name: 'Payroll Synchroniser', description: 'Payroll runs synchronised with every ledger.' });
  const reader = t.ctx.catalogueReaders.next();
  // The lookup's own statement, as it is sent, explained with its values on the catalogue's connection.
  const sent: CompiledSql[] = [];
  await lookUpWords({ ...reader, query: (statement) => (sent.push(statement), reader.query(statement)) }, ['payeoll', 'synchroniaer']);
  const lookup = sent.find((statement) => statement.text.includes('catalogue_words'))!;
  const [row] = await reader.query<{ 'QUERY PLAN': unknown }>({ text: `explain (analyze, format json) ${lookup.text}`, values: lookup.values });
  const trigramScans = (node: PlanNode): number =>
    (node['Index Name'] === 'catalogue_words_trgm_idx' && node['Order By'] ? node['Actual Loops'] : 0) +
    (node.Plans ?? []).reduce((sum, child) => sum + trigramScans(child), 0);
  const [plan] = (typeof row!['QUERY PLAN'] === 'string' ? JSON.parse(row!['QUERY PLAN']) : row!['QUERY PLAN']) as { Plan: PlanNode }[];
  // Two typos, two nearest-neighbour scans (six when the subquery was flattened into its three uses).
  expect(trigramScans(plan!.Plan)).toBe(2);
});

/** A node of `EXPLAIN (FORMAT JSON)`'s plan; `Order By` marks a nearest-neighbour index scan. */
interface PlanNode {
  'Index Name'?: string;
  'Order By'?: string;
  'Actual Loops': number;
  Plans?: PlanNode[];
}
