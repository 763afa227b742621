import { editDistance } from '../../lib/edit-distance.ts';
import { namedSql } from '../../lib/named-sql.ts';
import type { SqlReader } from '../../lib/sql-reader.ts';
// Raw SQL here is the hot public read (D106): the word lookups behind catalogue search.

/**
 * Typo tolerance for search: each word of the search that is not a word of the catalogue is
 * corrected to the catalogue's words one typo away (a letter added, dropped, changed, or two
 * swapped). In PostgreSQL, candidates come from `catalogue_words` by trigram distance (its GiST
 * index finds the nearest few among thousands of words in well under a millisecond) and the edit
 * distance decides; the search index's copy of the dictionary (`word-dictionary.ts`) answers
 * without the round trip, every catalogue word one typo away considered (D205 says where the two
 * can differ). Full-text search then runs on the corrected words, so a
 * typo costs what any search costs.
 */
const MAX_WORDS = 8;
const NEAREST = 8;
/** Corrections kept per word when several are equally close. */
export const MAX_ALTERNATIVES = 3;

/** What the catalogue says about one word of a search. */
export interface WordInfo {
  stopWord: boolean;
  /** The word itself first, then its corrections. */
  alternatives: string[];
  /** The share of visible apps that hold any of the alternatives (0 when all are rare). */
  share: number;
  /**
   * The lexemes the alternatives stand for in a text search query (as the 'simple' and 'english'
   * configurations make them), for the in-process index; null when one of them is more than a
   * lexeme there, which only the SQL search answers.
   */
  lexemes: string[] | null;
}

export type LookUpWords = (words: string[]) => Promise<Map<string, WordInfo>>;

/** The words of a search as the 'simple' text search configuration would see them. */
export function searchWords(search: string): string[] {
  const words = search
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  return [...new Set(words)].slice(0, MAX_WORDS);
}

/**
 * The share of visible apps holding each of the search table's most common lexemes, from
 * `ANALYZE`'s statistics (a word too rare to be among them counts as 0). Read once per reader and
 * catalogue version: statistics change slowly, and reading them costs a few milliseconds.
 */
const commonLexemes = new WeakMap<SqlReader, { version: number | undefined; shares: Promise<Map<string, number>> }>();
function lexemeShares(reader: SqlReader, version: number | undefined): Promise<Map<string, number>> {
  const known = commonLexemes.get(reader);
  if (known && known.version === version) return known.shares;
  const shares = reader
    .query<{ lexeme: string; share: number }>(
      namedSql(
        `select e.lexeme, e.share from pg_stats st, unnest(st.most_common_elems::text::text[], st.most_common_elem_freqs) as e(lexeme, share)
         where st.schemaname = current_schema() and st.tablename = 'app_search' and st.attname = 'search_vector' and e.lexeme is not null`,
        {},
      ),
    )
    .then((rows) => new Map(rows.map((row) => [row.lexeme, Number(row.share)])));
  shares.catch(() => commonLexemes.delete(reader));
  commonLexemes.set(reader, { version, shares });
  return shares;
}

/**
 * What the dictionary says of each word: whether it is an English stop word, its nearest
 * catalogue words (itself alone when it is one), and each spelling's query text (the word's own
 * first, then the nearest's) in the 'simple' and 'english' configurations.
 */
export interface WordRow {
  asked: string;
  stop_word: boolean;
  nearest: string[];
  simple: string[];
  english: string[];
}

/** The rows from PostgreSQL's dictionary: the nearest words by trigram distance (the GiST index). */
function readWordRows(reader: SqlReader, words: string[]): Promise<WordRow[]> {
  return reader.query<WordRow>(
    namedSql(
      `select x.asked, x.stop_word, x.nearest,
              array(select to_tsquery('simple', n)::text from unnest(x.asked || x.nearest) n) as simple,
              array(select to_tsquery('english', n)::text from unnest(x.asked || x.nearest) n) as english
       from (select w.word as asked, numnode(plainto_tsquery('english', w.word)) = 0 as stop_word,
                    case when exists (select 1 from catalogue_words c where c.word = w.word) then array[w.word]
                         else array(select c.word from catalogue_words c order by c.word <-> w.word limit :nearest) end as nearest
             from unnest(:words::text[]) w(word)
             -- A fence: flattened, the trigram search for the nearest words ran again for each use of x.nearest.
             offset 0) x`,
      { words, nearest: NEAREST },
    ),
  );
}

/**
 * Each word's `WordInfo`. The rows come from `inMemory` (the search index's copy of the
 * dictionary, D205) when it can answer every word, else from PostgreSQL.
 */
export async function lookUpWords(
  reader: SqlReader,
  words: string[],
  version?: number,
  inMemory?: (words: string[]) => Promise<WordRow[] | undefined>,
): Promise<Map<string, WordInfo>> {
  if (words.length === 0) return new Map();
  const [rows, shares] = await Promise.all([(async () => (await inMemory?.(words)) ?? readWordRows(reader, words))(), lexemeShares(reader, version)]);
  return new Map(
    rows.map((row) => {
      const alternatives = alternativesOf(row.asked, row.nearest);
      const spelt = [row.asked, ...row.nearest];
      // Each spelling's query in the two configurations: its lexemes, and the share of apps holding them.
      const formsOf = (word: string) => [row.simple[spelt.indexOf(word)] ?? null, row.english[spelt.indexOf(word)] ?? null];
      const shareOf = (word: string) => Math.max(shares.get(word) ?? 0, ...(lexemesOf(formsOf(word)) ?? []).map((lexeme) => shares.get(lexeme) ?? 0));
      const share = alternatives.reduce((sum, word) => sum + shareOf(word), 0);
      return [row.asked, { stopWord: row.stop_word, alternatives, share: Math.min(1, share), lexemes: lexemesOf(alternatives.flatMap(formsOf)) }];
    }),
  );
}

/** A single lexeme's query (`'word'`), or none (a stop word's empty query); anything else cannot be an OR of lexemes. */
const ONE_LEXEME = /^'([\p{L}\p{N}]+)'$/u;
function lexemesOf(queries: (string | null)[]): string[] | null {
  const lexemes = new Set<string>();
  for (const query of queries) {
    if (query === '') continue;
    const lexeme = query === null ? undefined : ONE_LEXEME.exec(query)?.[1];
    if (lexeme === undefined) return null;
    lexemes.add(lexeme);
  }
  return [...lexemes];
}

/**
 * Each word's alternatives, without English stop words ("the", "for" say nothing about an app)
 * unless they are all there is; and the share of visible apps expected to match them all (the
 * words' shares multiplied, as if independent).
 */
export async function correctWords(
  words: string[],
  lookUp: LookUpWords,
): Promise<{ groups: string[][]; share: number; lexemeGroups: string[][] | null }> {
  const known = await lookUp(words);
  const groups = words.map((word): WordInfo => known.get(word) ?? { stopWord: false, alternatives: [word], share: 0, lexemes: null });
  const meaningful = groups.filter((group) => !group.stopWord);
  const kept = meaningful.length > 0 ? meaningful : groups;
  // A group without lexemes drops out of the query, as an empty tsquery does from PostgreSQL's `&&`.
  const lexemeGroups = kept.some((group) => group.lexemes === null)
    ? null
    : kept.map((group) => group.lexemes!).filter((lexemes) => lexemes.length > 0);
  return {
    groups: kept.map((group) => group.alternatives),
    share: kept.reduce((product, group) => product * group.share, kept.length > 0 ? 1 : 0),
    lexemeGroups,
  };
}

function alternativesOf(word: string, nearest: string[]): string[] {
  if (nearest.includes(word) || word.length < 3) return [word];
  const scored = nearest.map((candidate) => ({ candidate, distance: editDistance(word, candidate, 1) })).filter((c) => c.distance <= 1);
  return [word, ...scored.slice(0, MAX_ALTERNATIVES).map((c) => c.candidate)];
}
