/**
 * PostgreSQL's `ts_rank(vector, query)` (default weights, no normalisation) computed in the
 * process, to the bit: the in-process search index (`search-index.ts`) ranks its candidates with it
 * and must order them exactly as the SQL search does. A port of `calc_rank_or` and `calc_rank_and`
 * in PostgreSQL's `tsrank.c`; every `Math.fround` stands where C rounds to a `float`.
 */

/**
 * Where a document's positions of each query lexeme are: `positions[starts[i]…starts[i] + counts[i]]`
 * for the i-th lexeme of `sortedLexemes` (count 0 where the document lacks it). A position is packed
 * as PostgreSQL packs it: the position in the low 14 bits, the weight (D=0 … A=3) above.
 */
export interface FoundPositions {
  positions: Uint16Array;
  starts: Int32Array;
  counts: Int32Array;
  /** How many of the query's lexemes there are. */
  size: number;
}

/** `default_weights` of tsrank.c, indexed by the packed weight (D, C, B, A). */
const WEIGHTS = [0.1, 0.2, 0.4, 1.0].map(Math.fround);
const POSITION_MASK = 0x3fff;
const weightOf = (packed: number) => WEIGHTS[packed >> 14]!;
/** `limit (sum(1/i^2), i=1, inf) = pi^2/6`, as tsrank.c writes it. */
const PI_SQUARED_OVER_SIX = 1.64493406685;
const FAR_APART = Math.fround(1e-30);
const NOT_RANKED = Math.fround(1e-20);

/** `word_distance`: how much two query words `distance` positions apart add to an AND query's rank. */
function wordDistance(distance: number): number {
  if (distance > 100) return FAR_APART;
  return Math.fround(1.0 / (1.005 + 0.05 * Math.exp(Math.fround(distance) / 1.5 - 2)));
}

/**
 * One lexeme's term of an OR query's rank (`calc_rank_or`'s per-item sum): it depends only on that
 * lexeme's `count` positions in the document, so the index keeps it beside each posting.
 */
export function lexemeTerm(positions: Uint16Array, start: number, count: number): number {
  let sum = 0;
  let heaviest = -1.0;
  let heaviestAt = 0;
  for (let j = 0; j < count; j++) {
    const weight = weightOf(positions[start + j]!);
    sum = Math.fround(sum + Math.fround(weight / ((j + 1) * (j + 1))));
    if (weight > heaviest) {
      heaviest = weight;
      heaviestAt = j;
    }
  }
  return Math.fround(Math.fround(heaviest + sum) - Math.fround(heaviest / ((heaviestAt + 1) * (heaviestAt + 1))));
}

/** An OR query's rank with one more of its lexemes' terms, added in the order of `sortedLexemes`. */
export const withTerm = (rank: number, term: number) => Math.fround(rank + term / PI_SQUARED_OVER_SIX);

/** An OR query's rank of `size` distinct lexemes from its terms' sum (`withTerm`); 0 for an empty vector. */
export const orRank = (terms: number, size: number, vectorSize: number) => (vectorSize === 0 ? 0 : size > 0 ? Math.fround(terms / size) : terms);

function rankOr({ positions, starts, counts, size }: FoundPositions): number {
  let rank = 0;
  for (let i = 0; i < size; i++) if (counts[i] !== 0) rank = withTerm(rank, lexemeTerm(positions, starts[i]!, counts[i]!));
  return orRank(rank, size, 1);
}

function rankAnd({ positions, starts, counts, size }: FoundPositions): number {
  let rank = -1.0;
  for (let i = 0; i < size; i++) {
    for (let k = 0; k < i; k++) {
      for (let l = starts[i]!; l < starts[i]! + counts[i]!; l++) {
        for (let p = starts[k]!; p < starts[k]! + counts[k]!; p++) {
          const distance = Math.abs((positions[l]! & POSITION_MASK) - (positions[p]! & POSITION_MASK));
          if (distance === 0) continue;
          const weight = Math.fround(Math.sqrt(Math.fround(Math.fround(weightOf(positions[l]!) * weightOf(positions[p]!)) * wordDistance(distance))));
          rank = rank < 0 ? weight : Math.fround(1.0 - (1.0 - rank) * (1.0 - weight));
        }
      }
    }
  }
  return rank;
}

/**
 * The rank of a vector for a query whose distinct lexemes, in the order of `sortedLexemes`, have
 * the `found` positions in it. `allOf` is true when the query's
 * root is AND (two or more groups of words), false for one group (an OR of its lexemes); an empty
 * vector ranks 0.
 */
export function textRank(found: FoundPositions, allOf: boolean, vectorSize: number): number {
  if (vectorSize === 0) return 0;
  const rank = allOf && found.size >= 2 ? rankAnd(found) : rankOr(found);
  return rank < 0 ? NOT_RANKED : rank;
}

/** A query's distinct lexemes in the order PostgreSQL ranks them (`SortAndUniqItems`: by their UTF-8 bytes). */
export function sortedLexemes(lexemes: Iterable<string>): string[] {
  return [...new Set(lexemes)]
    .map((lexeme) => ({ lexeme, bytes: Buffer.from(lexeme) }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map(({ lexeme }) => lexeme);
}
