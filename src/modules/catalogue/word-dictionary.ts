import { editDistance } from '../../lib/edit-distance.ts';
import { ENGLISH_STOP_WORDS, englishStem, type StemmerEdition } from '../../lib/english-stem.ts';
import { widened } from '../../lib/widened.ts';
import { MAX_ALTERNATIVES, type WordRow } from './search-words.ts';

/**
 * The catalogue's words (`catalogue_words`) in this process, held by the search index (D205), so
 * a search's words are corrected and made into lexemes without a round trip: the answer
 * `readWordRows` would read from PostgreSQL. A word that is not one of the catalogue's is
 * corrected to those one typo away (`editDistance`'s typos: a letter added, dropped, changed, or
 * two neighbours swapped), the most similar first as pg_trgm measures it. Only words PostgreSQL's
 * configurations make one plain lexeme of are answered here, and only once the server's stemmer
 * edition is known; for any other, the caller asks PostgreSQL.
 */

/** ASCII letters (the `english_stem` dictionary's words) or digits alone (the `simple` dictionary's in both configurations). */
const LETTERS = /^[a-z]+$/;
const DIGITS = /^[0-9]+$/;
/** No catalogue word is longer (`catalogue_words_of`). */
const LONGEST = 40;

const answerable = (word: string) => word.length <= LONGEST && (LETTERS.test(word) || DIGITS.test(word));

/** The spelling's query text in the 'simple' and the 'english' configuration, as `to_tsquery(…)::text` prints them. */
function formsOf(word: string, edition: StemmerEdition): [string, string] {
  if (!LETTERS.test(word)) return [`'${word}'`, `'${word}'`];
  return [`'${word}'`, ENGLISH_STOP_WORDS.has(word) ? '' : `'${englishStem(word, edition)}'`];
}

/** pg_trgm's trigrams of one word: the word padded with two spaces before and one after. */
function trigrams(word: string): Set<string> {
  const padded = `  ${word} `;
  const found = new Set<string>();
  for (let i = 0; i + 3 <= padded.length; i += 1) found.add(padded.slice(i, i + 3));
  return found;
}

/** pg_trgm's `similarity`: shared trigrams over all trigrams of the two. */
function similarity(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const trigram of a) if (b.has(trigram)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/**
 * Word ids by a 32-bit hash of each word and of each of its spellings with one letter dropped:
 * a word one typo away from another shares such a spelling with it, is one of its, or has it
 * as one ("symmetric delete"), so its candidates are found with a few lookups whatever the
 * dictionary's size. Typed arrays, chained per bucket: no object per entry.
 */
class DeletionTable {
  private heads = new Int32Array(1024).fill(-1);
  private next = new Int32Array(1024);
  private hashes = new Int32Array(1024);
  private words = new Int32Array(1024);
  private size = 0;

  add(spelling: string, word: number) {
    if (this.size === this.next.length) {
      this.next = widened(this.next, this.size * 2);
      this.hashes = widened(this.hashes, this.size * 2);
      this.words = widened(this.words, this.size * 2);
    }
    if (this.size >= this.heads.length) this.rebucket(this.heads.length * 2);
    const entry = this.size++;
    const hash = Bun.hash.murmur32v3(spelling) | 0;
    this.hashes[entry] = hash;
    this.words[entry] = word;
    const bucket = hash & (this.heads.length - 1);
    this.next[entry] = this.heads[bucket]!;
    this.heads[bucket] = entry;
  }

  /** The words filed under `spelling`'s hash (a collision's too: the caller checks). */
  wordsAt(spelling: string, found: Set<number>) {
    const hash = Bun.hash.murmur32v3(spelling) | 0;
    for (let entry = this.heads[hash & (this.heads.length - 1)]!; entry !== -1; entry = this.next[entry]!) {
      if (this.hashes[entry] === hash) found.add(this.words[entry]!);
    }
  }

  private rebucket(buckets: number) {
    this.heads = new Int32Array(buckets).fill(-1);
    for (let entry = 0; entry < this.size; entry++) {
      const bucket = this.hashes[entry]! & (buckets - 1);
      this.next[entry] = this.heads[bucket]!;
      this.heads[bucket] = entry;
    }
  }
}

/** The word itself, then each spelling of it with one letter dropped. */
function withOneDropped(word: string): string[] {
  const spellings = [word];
  for (let i = 0; i < word.length; i += 1) spellings.push(word.slice(0, i) + word.slice(i + 1));
  return spellings;
}

export class WordDictionary {
  private readonly ids = new Map<string, number>();
  private readonly words: string[] = [];
  private readonly deletions = new DeletionTable();
  /** The server's stemmer (`editionOf`): none answers until it is known, nor when the server's is none of ours. */
  edition: StemmerEdition | undefined;

  add(word: string) {
    if (this.ids.has(word)) return;
    const id = this.words.length;
    this.ids.set(word, id);
    this.words.push(word);
    for (const spelling of new Set(withOneDropped(word))) this.deletions.add(spelling, id);
  }

  /** What PostgreSQL's dictionary query answers for each word; undefined when a word or a correction of it is not `answerable`. */
  rows(asked: string[]): WordRow[] | undefined {
    const edition = this.edition;
    if (!edition) return undefined;
    const rows: WordRow[] = [];
    for (const word of asked) {
      if (!answerable(word)) return undefined;
      const nearest = this.ids.has(word) ? [word] : this.corrections(word);
      if (!nearest.every(answerable)) return undefined;
      const forms = [word, ...nearest].map((spelling) => formsOf(spelling, edition));
      rows.push({
        asked: word,
        stop_word: ENGLISH_STOP_WORDS.has(word),
        nearest,
        simple: forms.map(([simple]) => simple),
        english: forms.map(([, english]) => english),
      });
    }
    return rows;
  }

  /** The catalogue's words one typo away from `word`, the most similar first (ties: in the words' order). */
  private corrections(word: string): string[] {
    if (word.length < 3) return [];
    const candidates = new Set<number>();
    for (const spelling of withOneDropped(word)) this.deletions.wordsAt(spelling, candidates);
    const asked = trigrams(word);
    return [...candidates]
      .map((id) => this.words[id]!)
      .filter((spelling) => spelling !== word && editDistance(word, spelling, 1) <= 1)
      .map((spelling) => ({ spelling, similarity: similarity(asked, trigrams(spelling)) }))
      .sort((a, b) => b.similarity - a.similarity || (a.spelling < b.spelling ? -1 : 1))
      .slice(0, MAX_ALTERNATIVES)
      .map((c) => c.spelling);
  }
}
