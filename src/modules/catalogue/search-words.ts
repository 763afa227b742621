import { editDistance } from '../../lib/edit-distance.ts';
import { namedSql } from '../../lib/named-sql.ts';
import type { SqlReader } from '../../lib/sql-reader.ts';

/**
 * Typo tolerance for search: each word of the search that is not a word of the catalogue is
 * corrected to the catalogue's words one typo away (a letter added, dropped, changed, or two
 * swapped). Candidates come from `catalogue_words` by trigram distance (its GiST index finds the
 * nearest few among thousands of words in well under a millisecond); the edit distance decides.
 * Full-text search then runs on the corrected words, so a typo costs what any search costs.
 */
const MAX_WORDS = 8;
const NEAREST = 8;
/** Corrections kept per word when several are equally close. */
const MAX_ALTERNATIVES = 3;

/** What the catalogue says about one word of a search. */
export interface WordInfo {
  stopWord: boolean;
  /** The word itself first, then its corrections. */
  alternatives: string[];
  /** The share of visible apps that hold any of the alternatives (0 when all are rare). */
  share: number;
}

export type LookUpWords = (words: string[]) => Promise<Map<string, WordInfo>>;

/** The words of a search as the 'simple' text search configuration would see them. */
export function searchWords(search: string): string[] {
  const words = search.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  return [...new Set(words)].slice(0, MAX_WORDS);
}

export async function lookUpWords(reader: SqlReader, words: string[]): Promise<Map<string, WordInfo>> {
  if (words.length === 0) return new Map();
  const rows = await reader.query<{ asked: string; stop_word: boolean; nearest: string[]; shares: number[] }>(
    namedSql(
      `select x.asked, x.stop_word, x.nearest, array(select app_search_share(n) from unnest(x.nearest) n) as shares
       from (select w.word as asked, numnode(plainto_tsquery('english', w.word)) = 0 as stop_word,
                    case when exists (select 1 from catalogue_words c where c.word = w.word) then array[w.word]
                         else array(select c.word from catalogue_words c order by c.word <-> w.word limit :nearest) end as nearest
             from unnest(:words::text[]) w(word)) x`,
      { words, nearest: NEAREST },
    ),
  );
  return new Map(
    rows.map((row) => {
      const alternatives = alternativesOf(row.asked, row.nearest);
      const share = alternatives.reduce((sum, word) => sum + Number(row.shares[row.nearest.indexOf(word)] ?? 0), 0);
      return [row.asked, { stopWord: row.stop_word, alternatives, share: Math.min(1, share) }];
    }),
  );
}

/**
 * Each word's alternatives, without English stop words ("the", "for" say nothing about an app)
 * unless they are all there is; and the share of visible apps expected to match them all (the
 * words' shares multiplied, as if independent).
 */
export async function correctWords(words: string[], lookUp: LookUpWords): Promise<{ groups: string[][]; share: number }> {
  const known = await lookUp(words);
  const groups = words.map((word) => known.get(word) ?? { stopWord: false, alternatives: [word], share: 0 });
  const meaningful = groups.filter((group) => !group.stopWord);
  const kept = meaningful.length > 0 ? meaningful : groups;
  return { groups: kept.map((group) => group.alternatives), share: kept.reduce((product, group) => product * group.share, kept.length > 0 ? 1 : 0) };
}

function alternativesOf(word: string, nearest: string[]): string[] {
  if (nearest.includes(word) || word.length < 3) return [word];
  const scored = nearest.map((candidate) => ({ candidate, distance: editDistance(word, candidate, 1) })).filter((c) => c.distance <= 1);
  return [word, ...scored.slice(0, MAX_ALTERNATIVES).map((c) => c.candidate)];
}
