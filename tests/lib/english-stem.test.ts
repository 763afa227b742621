import { afterAll, beforeAll, expect, test } from 'bun:test';
import pg from 'pg';
import { editionOf, ENGLISH_STOP_WORDS, englishStem, STEM_PROBES } from '../../src/lib/english-stem.ts';
import { seededRandom, pick } from '../../src/lib/seeded-random.ts';
import { BRANDS, CATEGORY_WORDS, SECOND_SENTENCES } from '../../src/modules/catalogue/seed-words.ts';
import { typo } from '../../bench/search-terms.ts';
import { createBlankDatabase, dropTestDatabase } from '../support/database.ts';

/**
 * The stemmer must make the lexeme PostgreSQL's `english_stem` makes of every word a search may
 * hold (D205): a different one would find other apps than the SQL search. Held to PostgreSQL's
 * own answers (in the edition the server's answers to the probes name) for words that exercise
 * every rule, the catalogue's words, and typos and suffixed forms of them.
 */
let url: string;
let client: pg.Client;
beforeAll(async () => {
  url = await createBlankDatabase();
  client = new pg.Client({ connectionString: url });
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await dropTestDatabase(url);
});

/** Words whose stems go through each step's rules, exceptions and special regions. */
const RULES = `skis skies dying lying tying idly gently ugly early only singly sky news howe atlas cosmos bias andes
  inning innings outing canning herring earring proceed exceed succeeded generous generously generate communism
  communication arsenal arsenic emergency universal later lateral organ organic past pastel caresses ties cries gas
  gaps kiwis consensus class agreed feed bleed hoped hopping hoping filing fizzed luxuriated troubled sized falling
  hissing fizzing failing tanned aimed seeing cry by say happy fly yelled yearly youth played crying relational
  conditional valence hesitancy digitizer conformably radically differently vileli analogous analogi archaeology
  operator feudalism sensitiveness hopefulness callousness formality sensibility fruitfully breathlessly
  triplicate formative formalize electricity electrical hopeful goodness revival allowance inference airliner
  gyroscopic adjustable defensible irritant replacement adjustment dependent adoption communism activate angularity
  homologous effective bowdlerize probate rate cease controll roll mississippi kayaks yay ayes boyish dryly eyeing
  ski a an be is it us ox oxen xyz bb tt sses ied ies eed ing ly y ly`;

function variants(): string[] {
  const random = seededRandom(23);
  const base = new Set(RULES.split(/\s+/).filter(Boolean));
  const catalogue = [
    ...BRANDS,
    ...SECOND_SENTENCES,
    ...Object.values(CATEGORY_WORDS).flatMap((words) => [...words.nouns, ...words.does, ...words.audiences]),
  ].join(' ');
  for (const word of catalogue.toLowerCase().split(/[^a-z]+/)) if (word) base.add(word);
  const suffixes = ['s', 'es', 'ed', 'ing', 'ly', 'ness', 'ational', 'ization', 'ement', 'ies', 'ied', 'edly', 'ingly', 'ful', 'ative', 'y'];
  const words = new Set(base);
  for (const word of base) {
    for (let i = 0; i < 6; i += 1) words.add(typo(random, word));
    words.add(word + pick(random, suffixes));
    words.add(`y${word}`);
  }
  return [...words].filter((word) => /^[a-z]+$/.test(word));
}

const lexemesOf = async (words: string[]) =>
  (
    await client.query<{ word: string; lexemes: string[] }>(`select w as word, ts_lexize('english_stem', w) as lexemes from unnest($1::text[]) w`, [
      words,
    ])
  ).rows;

test('every word gets the lexeme PostgreSQL’s english_stem makes, and stop words none', async () => {
  const edition = editionOf(new Map((await lexemesOf(STEM_PROBES)).map((row) => [row.word, row.lexemes])));
  if (!edition) throw new Error('the server stems the probes as no edition we know');
  const words = variants();
  const rows = await lexemesOf(words);
  const wrong = rows.filter((row) => {
    const stop = ENGLISH_STOP_WORDS.has(row.word);
    return stop ? row.lexemes.length !== 0 : row.lexemes[0] !== englishStem(row.word, edition);
  });
  expect(wrong.map((row) => `${row.word}: ${row.lexemes} (ours ${englishStem(row.word, edition)})`)).toEqual([]);
  expect(rows.length).toBeGreaterThan(3_000);
  // Every stop word PostgreSQL knows is in the list, and nothing else is.
  const stops = await client.query<{ word: string }>(`select w as word from unnest($1::text[]) w where ts_lexize('english_stem', w) = '{}'`, [
    [...ENGLISH_STOP_WORDS],
  ]);
  expect(stops.rows.length).toBe(ENGLISH_STOP_WORDS.size);
});

test('the editions differ where PostgreSQL 15 and 18 were seen to, and a server answering neither is named none', () => {
  expect(['erred', 'added', 'ebbing', 'hopping'].map((word) => englishStem(word, '2.1'))).toEqual(['er', 'ad', 'eb', 'hop']);
  expect(['erred', 'added', 'ebbing', 'hopping'].map((word) => englishStem(word, '2.2'))).toEqual(['err', 'add', 'ebb', 'hop']);
  const as21 = new Map(STEM_PROBES.map((word) => [word, ENGLISH_STOP_WORDS.has(word) ? [] : [englishStem(word, '2.1')]]));
  expect(editionOf(as21)).toBe('2.1');
  expect(editionOf(new Map([...as21, ['hopping', ['hopping']]]))).toBeUndefined();
});
