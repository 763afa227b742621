import { afterAll, beforeAll, expect, test } from 'bun:test';
import pg from 'pg';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { eventually } from '../support/eventually.ts';
import { seedApps } from '../../src/modules/catalogue/seed.service.ts';
import { listCatalogue } from '../../src/modules/catalogue/catalogue.service.ts';
import { bumpCatalogueVersion, readCatalogueVersion } from '../../src/modules/catalogue/catalogue-version.ts';
import { createSearchIndex } from '../../src/modules/catalogue/search-index.ts';
import { lookUpWords } from '../../src/modules/catalogue/search-words.ts';
import { seededRandom, pick } from '../../src/lib/seeded-random.ts';
import { CATEGORIES, ENVIRONMENTS } from '../../src/modules/apps/app.entity.ts';
import type { CatalogueQuery, CatalogueSort } from '../../src/modules/catalogue/catalogue.model.ts';
import type { SqlReader } from '../../src/lib/sql-reader.ts';
import { typo } from '../../bench/search-terms.ts';
import { editDistance } from '../../src/lib/edit-distance.ts';
import { namedSql } from '../../src/lib/named-sql.ts';

/**
 * The in-process search index (D199) must answer every search exactly as the SQL search does:
 * the same candidates, the same ts_rank to the bit, the same order and totals, for every filter,
 * sort and page; and it must follow the catalogue, including a change committed by a transaction
 * that was still open when the index last read.
 */
let t: TestApp;
let listings: { id: string; name: string; description: string }[];

beforeAll(async () => {
  // No workers: nothing but the test changes the counters while answers are compared.
  t = await createTestApp({}, { role: 'api' });
  await seedApps(t.ctx.orm.em.fork(), 5_000, { seed: 11 });
  // Counts with many ties (the id breaks them), and some apps hidden, renamed alike or stripped of words.
  await t.sql(`update app_stats set active_installs = abs(hashtext(app_id::text)) % 40, install_count = abs(hashtext(app_id::text)) % 40`);
  await t.sql(`update apps set status = 'SUSPENDED' where id in (select id from apps order by id limit 40)`);
  await t.sql(`update apps set name = 'Twin Planner' where id in (select id from apps order by id desc limit 3)`);
  await t.sql(`update apps set featured = true where id in (select id from apps order by md5(id::text) limit 700)`);
  listings = await t.sql(`select id, name, description from apps where status = 'APPROVED' order by id`);
  await bumpCatalogueVersion(t.ctx.orm.em.fork());
}, 120_000);
afterAll(() => t.close());

/** A new index once its first reading (started by the first search, which the SQL search answers) is done. */
async function loadedIndex(reader: SqlReader, version: number) {
  const index = createSearchIndex(() => reader);
  const probe = { groups: [['probe']], exact: 'probe', filter: {}, candidates: 1_000, ranked: true };
  expect(await index.search(probe, version)).toBeUndefined();
  await eventually(async () => (await index.search(probe, version)) !== undefined);
  return index;
}

const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

function searches(count: number): string[] {
  const random = seededRandom(5);
  const all = [...new Set(listings.flatMap((app) => wordsOf(`${app.name} ${app.description}`)))];
  const found = ['twin planner', 'the', 'for the team', 'x²y', 'zzz nothing', 'team', 'tasks', 'team tasks sync', '2'];
  while (found.length < count) {
    const app = pick(random, listings);
    const sentence = wordsOf(random() < 0.5 ? app.name : app.description);
    const start = Math.floor(random() * sentence.length);
    switch (found.length % 5) {
      case 0:
        found.push(pick(random, all));
        break;
      case 1:
        found.push(typo(random, pick(random, all)));
        break;
      case 2:
        found.push(app.name);
        break;
      case 3:
        found.push(sentence.slice(start, start + 2).join(' '));
        break;
      default:
        found.push(
          sentence
            .slice(start, start + 3)
            .map((word, i) => (i === 1 ? typo(random, word) : word))
            .join(' '),
        );
    }
  }
  return found;
}

test('the index answers as the SQL search does: candidates, ts_rank to the bit, order, totals, filters, sorts and pages', async () => {
  const reader = t.ctx.catalogueReaders.next();
  const version = await readCatalogueVersion(reader);
  const index = await loadedIndex(reader, version);
  const lookUp = (words: string[]) => lookUpWords(reader, words, version);
  const random = seededRandom(9);
  const sorts: CatalogueSort[] = ['relevance', 'relevance', 'relevance', 'installs', 'rating', 'newest'];
  let compared = 0;
  let bounded = 0;
  for (const [n, search] of searches(400).entries()) {
    const query: CatalogueQuery = { search, sort: sorts[n % sorts.length], page: 1 + (n % 4 === 3 ? 2 : 0), limit: n % 3 === 0 ? 50 : 20 };
    if (n % 5 === 1) query.category = pick(random, [...CATEGORIES]);
    if (n % 7 === 2) query.environment = pick(random, [...ENVIRONMENTS]);
    if (n % 11 === 4) query.featured = n % 2 === 0;
    const viaSql = await listCatalogue(reader, query, undefined, lookUp);
    const viaIndex = await listCatalogue(reader, query, undefined, lookUp, (indexed) => index.search(indexed, version));
    expect({ search, total: viaIndex.pagination.total, ids: viaIndex.data.map((app) => app.id) }).toEqual({
      search,
      total: viaSql.pagination.total,
      ids: viaSql.data.map((app) => app.id),
    });
    compared += viaSql.data.length;
    if (viaSql.pagination.total === 1_000) bounded++;
  }
  // The comparison covered real pages, including words common enough for the candidate bound to apply.
  expect(compared).toBeGreaterThan(2_000);
  expect(bounded).toBeGreaterThan(5);
  expect(index.size).toBe(listings.length);
}, 120_000);

test('the index follows the catalogue, a change committed by a transaction open at its last reading included', async () => {
  const reader = t.ctx.catalogueReaders.next();
  const index = await loadedIndex(reader, await readCatalogueVersion(reader));
  const find = async (words: string) => {
    const version = await readCatalogueVersion(reader);
    const found = await index.search({ groups: [[words]], exact: words, filter: {}, candidates: 1_000, ranked: true }, version);
    return found!.ids;
  };
  const [early, late] = listings;
  expect(await find('quetzal')).toEqual([]);
  expect(await find('ibis')).toEqual([]);

  const other = new pg.Client({ connectionString: t.ctx.config.databaseUrl });
  await other.connect();
  try {
    // A transaction renames one app and stays open while a later one renames a second and commits.
    await other.query('begin');
    await other.query(`update apps set name = 'Ibis' where id = $1`, [late!.id]);
    await t.sql(`update apps set name = 'Quetzal' where id = ?`, [early!.id]);
    await bumpCatalogueVersion(t.ctx.orm.em.fork());
    expect(await find('quetzal')).toEqual([early!.id]);
    expect(await find('ibis')).toEqual([]);
    // Committed after the index read past the later one: the next reading still finds it.
    await other.query('commit');
    await bumpCatalogueVersion(t.ctx.orm.em.fork());
    expect(await find('ibis')).toEqual([late!.id]);
  } finally {
    await other.end();
  }

  // Hidden, shown again, and its words replaced.
  await t.sql(`update apps set status = 'SUSPENDED' where id = ?`, [early!.id]);
  await bumpCatalogueVersion(t.ctx.orm.em.fork());
  expect(await find('quetzal')).toEqual([]);
  await t.sql(`update apps set status = 'APPROVED' where id = ?`, [early!.id]);
  await bumpCatalogueVersion(t.ctx.orm.em.fork());
  expect(await find('quetzal')).toEqual([early!.id]);
  await t.sql(`update apps set name = 'Axolotl', description = 'Axolotl keeps lists.' where id = ?`, [late!.id]);
  await bumpCatalogueVersion(t.ctx.orm.em.fork());
  expect(await find('ibis')).toEqual([]);
  expect(await find('axolotl')).toEqual([late!.id]);
});

test('install counts reach the index without a version change, within the contract’s seconds, no search waiting for them (D219)', async () => {
  const [first, second] = await t.sql<{ id: string }>(
    `select a.id from apps a where a.status = 'APPROVED' and a.description ilike '%kanban%' order by a.id limit 2`,
  );
  await t.sql(`update apps set name = 'Ocelot Board', description = 'Ocelot Board.' where id in (?, ?)`, [first!.id, second!.id]);
  await t.sql(`update app_stats set active_installs = case when app_id = ? then 500 else 400 end, updated_at = now() where app_id in (?, ?)`, [
    first!.id,
    first!.id,
    second!.id,
  ]);
  await bumpCatalogueVersion(t.ctx.orm.em.fork());
  const order = async () => (await t.call('GET', '/api/apps?search=ocelot%20board&sort=relevance')).body.data.map((app: { id: string }) => app.id);
  // Named exactly as searched, both come first, the most installed ahead.
  expect(await order()).toEqual([first!.id, second!.id]);
  const reader = t.ctx.catalogueReaders.next();
  const version = await readCatalogueVersion(reader);
  // The index's readings pass a gate the test can close: a reading behind it waits.
  let gate: Promise<void> | undefined;
  let openGate = () => {};
  const gated: SqlReader = { ...reader, query: async (statement) => (await gate, reader.query(statement)) };
  const index = await loadedIndex(gated, version);
  const query = { groups: [['ocelot'], ['board']], exact: 'ocelot board', filter: {}, candidates: 1_000, ranked: true };
  const before = (await index.search(query, version))!;
  expect(before.ids).toEqual([first!.id, second!.id]);

  await t.sql(`update app_stats set active_installs = 900, updated_at = now() where app_id = ?`, [second!.id]);
  gate = new Promise((resolve) => {
    openGate = resolve;
  });
  // Once the process has learnt of new counters, a search answers at once by the counts it has, saying when they were read…
  const learntAt = performance.now();
  const meanwhile = (await index.search(query, version, learntAt))!;
  expect([meanwhile.ids, meanwhile.countedAt! < learntAt]).toEqual([[first!.id, second!.id], true]);
  // …while the new ones are read behind it, and the searches after that order by them…
  openGate();
  await eventually(async () => (await index.search(query, version, learntAt))!.ids[0] === second!.id);
  expect((await index.search(query, version, learntAt))!.countedAt).toBeGreaterThan(learntAt);
  // …and the answers served over HTTP follow.
  await eventually(async () => (await order())[0] === second!.id);
});

test('between searches the index renews its reading on its own, so a search after a pause waits for none (D224)', async () => {
  const reader = t.ctx.catalogueReaders.next();
  const version = await readCatalogueVersion(reader);
  let readings = 0;
  let gate: Promise<void> | undefined;
  let openGate = () => {};
  const counted: SqlReader = {
    ...reader,
    query: async (statement) => {
      // Each reading ends with the counts that changed since the one before.
      if (statement.text.includes('counted_xid')) readings += 1;
      await gate;
      return reader.query(statement);
    },
  };
  const index = await loadedIndex(counted, version);
  const query = { groups: [['kanban']], exact: 'kanban', filter: {}, candidates: 1_000, ranked: true };
  await index.search(query, version);
  // With no search coming, the index reads again, twice, each once its reading is half the counts' age old:
  // by then a search would otherwise wait for a reading.
  for (const before of [readings, readings + 1]) await eventually(async () => readings > before);
  gate = new Promise((resolve) => {
    openGate = resolve;
  });
  let answered = false;
  const found = index.search(query, version).then((candidates) => {
    answered = true;
    return candidates;
  });
  // Its readings are held at the gate, and the search answers all the same.
  await eventually(async () => answered);
  expect((await found)!.ids.length).toBeGreaterThan(0);
  openGate();
});

test('every way the index finds candidates (all matches, a walk by bitmaps, a walk by marks) gives the most installed matches', async () => {
  const reader = t.ctx.catalogueReaders.next();
  const version = await readCatalogueVersion(reader);
  const index = await loadedIndex(reader, version);
  // Lexemes by how many apps hold them: a list of fewer than one app in 32 keeps no bitmap (D202).
  const lexemes = await t.sql<{ word: string; ndoc: number }>(
    `select word, ndoc from ts_stat('select search_vector from app_search where visible') where word ~ '^[a-z0-9]+$' order by word`,
  );
  const sparse = lexemes.filter((l) => l.ndoc >= 40 && l.ndoc * 32 < listings.length).map((l) => l.word);
  const dense = lexemes.filter((l) => l.ndoc * 32 >= listings.length * 2 && l.ndoc < listings.length / 3).map((l) => l.word);
  expect(sparse.length).toBeGreaterThan(16);
  expect(dense.length).toBeGreaterThan(8);
  const random = seededRandom(17);
  const group = (from: string[], size: number) => [...new Set(Array.from({ length: size }, () => pick(random, from)))];
  const cases = Array.from({ length: 60 }, (_, n) => ({
    // Small bounds make walks of groups a few hundred apps strong: by bitmaps for common words, by
    // marks for groups of rarer ones, and every match sorted for the rest.
    groups: n % 3 === 0 ? [group(sparse, 4), group(sparse, 4)] : n % 3 === 1 ? [group(dense, 1), group(dense, 2)] : [group(dense, 2)],
    candidates: [5, 20, 100][n % 3]!,
    filter: n % 4 === 3 ? { category: pick(random, [...CATEGORIES]) } : {},
  }));
  for (const { groups, candidates, filter } of cases) {
    const found = await index.search({ groups, exact: '', filter, candidates, ranked: false }, version);
    const query = groups.map((words) => `(${words.join(' | ')})`).join(' & ');
    const expected = await t.sql<{ id: string }>(
      `select a.app_id as id from app_search a join app_stats st on st.app_id = a.app_id
       where a.visible and a.search_vector @@ to_tsquery('simple', ?) ${'category' in filter ? 'and a.category = ?' : ''}
       order by st.active_installs desc, a.app_id desc limit ?`,
      [query, ...('category' in filter ? [filter.category] : []), candidates],
    );
    expect({ query, filter, ids: found!.ids }).toEqual({ query, filter, ids: expected.map((row) => row.id) });
  }
});

test('the index’s copy of the dictionary answers each word as PostgreSQL would, every word one typo away considered (D205)', async () => {
  const reader = t.ctx.catalogueReaders.next();
  const version = await readCatalogueVersion(reader);
  const index = await loadedIndex(reader, version);
  const dictionary = (await t.sql<{ word: string }>(`select word from catalogue_words order by word`)).map((row) => row.word);
  const random = seededRandom(31);
  const letters = dictionary.filter((word) => /^[a-z]+$/.test(word));
  const asked = [
    ...new Set([...letters.slice(0, 300), ...Array.from({ length: 600 }, () => typo(random, pick(random, letters))), 'the', 'for', '2']),
  ];
  const rows = (await index.words(asked, version))!;
  expect(rows.map((row) => row.asked)).toEqual(asked);
  // Every spelling's forms and every stop word as PostgreSQL makes them.
  const spellings = [...new Set(rows.flatMap((row) => [row.asked, ...row.nearest]))];
  const forms = await reader.query<{ spelling: string; simple: string; english: string; stop_word: boolean }>(
    namedSql(
      `select s as spelling, to_tsquery('simple', s)::text as simple, to_tsquery('english', s)::text as english,
              numnode(plainto_tsquery('english', s)) = 0 as stop_word
       from unnest(:spellings::text[]) s`,
      { spellings },
    ),
  );
  const formOf = new Map(forms.map((form) => [form.spelling, form]));
  for (const row of rows) {
    expect({ word: row.asked, stop: row.stop_word }).toEqual({ word: row.asked, stop: formOf.get(row.asked)!.stop_word });
    const spelt = [row.asked, ...row.nearest];
    expect({ word: row.asked, simple: row.simple, english: row.english }).toEqual({
      word: row.asked,
      simple: spelt.map((spelling) => formOf.get(spelling)!.simple),
      english: spelt.map((spelling) => formOf.get(spelling)!.english),
    });
  }
  // A catalogue word is its own; any other, its three words one typo away most similar by pg_trgm (ties: by the words).
  const similar = await reader.query<{ asked: string; nearest: string[] }>(
    namedSql(
      `select a.asked, coalesce((select array_agg(c.word order by similarity(a.asked, c.word) desc, c.word)
                                 from catalogue_words c where c.word <> a.asked and abs(length(c.word) - length(a.asked)) <= 1), '{}') as nearest
       from unnest(:asked::text[]) a(asked)`,
      { asked },
    ),
  );
  const oneTypo = new Map(similar.map((row) => [row.asked, row.nearest.filter((word) => editDistance(row.asked, word, 1) <= 1)]));
  let corrected = 0;
  for (const row of rows) {
    const expected = dictionary.includes(row.asked) ? [row.asked] : row.asked.length < 3 ? [] : oneTypo.get(row.asked)!.slice(0, 3);
    expect({ word: row.asked, nearest: row.nearest }).toEqual({ word: row.asked, nearest: expected });
    if (!dictionary.includes(row.asked) && expected.length > 0) corrected++;
  }
  expect(corrected).toBeGreaterThan(300);
  // Words only PostgreSQL makes lexemes of are left to it.
  expect(await index.words(['x²y'], version)).toBeUndefined();
  expect(await index.words(['team', 'v2'], version)).toBeUndefined();
});

test('a word the catalogue gains reaches the index’s dictionary with the version that shows it', async () => {
  const reader = t.ctx.catalogueReaders.next();
  const index = await loadedIndex(reader, await readCatalogueVersion(reader));
  const nearest = async (word: string) => (await index.words([word], await readCatalogueVersion(reader)))![0]!.nearest;
  expect(await nearest('pangolin')).toEqual([]);
  await t.sql(`update apps set description = 'Pangolin keeps lists.' where id = ?`, [listings[5]!.id]);
  await bumpCatalogueVersion(t.ctx.orm.em.fork());
  expect(await nearest('pangolin')).toEqual(['pangolin']);
  expect(await nearest('pangolni')).toEqual(['pangolin']);
});
