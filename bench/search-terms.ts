/**
 * The search mix: full names, single words, two-word phrases and one-typo variants, drawn at
 * random from the seeded catalogue, so thousands of distinct queries reach the server and a cache
 * alone cannot answer them all.
 */
import { pick, type Random } from '../src/lib/seeded-random.ts';

const wordsOf = (text: string) => text.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0);

/** One typo: a letter dropped, doubled, changed, or two neighbours swapped. */
export function typo(random: Random, word: string): string {
  if (word.length < 4) return word;
  const at = 1 + Math.floor(random() * (word.length - 2));
  switch (Math.floor(random() * 4)) {
    case 0:
      return word.slice(0, at) + word.slice(at + 1);
    case 1:
      return word.slice(0, at) + word[at] + word.slice(at);
    case 2:
      return word.slice(0, at) + (word[at] === 'e' ? 'a' : 'e') + word.slice(at + 1);
    default:
      return word.slice(0, at - 1) + word[at] + word[at - 1] + word.slice(at + 1);
  }
}

export function searchMix(random: Random, listings: { name: string; description: string }[], perKind: number): string[] {
  const queries = new Set<string>();
  const words = [...new Set(listings.flatMap((listing) => wordsOf(`${listing.name} ${listing.description}`)))].filter((w) => w.length >= 3);
  for (let i = 0; i < perKind; i += 1) {
    const listing = pick(random, listings);
    queries.add(listing.name);
    queries.add(pick(random, words));
    const sentence = wordsOf(random() < 0.5 ? listing.name : listing.description);
    const start = Math.floor(random() * Math.max(1, sentence.length - 1));
    queries.add(sentence.slice(start, start + 2).join(' '));
    const typed = wordsOf(listing.name);
    const which = Math.floor(random() * typed.length);
    queries.add(typed.map((word, j) => (j === which ? typo(random, word) : word)).join(' '));
  }
  return [...queries].filter((query) => query.trim().length > 0);
}

export const searchPath = (query: string) => `/api/apps?search=${encodeURIComponent(query)}`;

/**
 * The cold mix: `count` distinct queries none of which is in `exclude`, of three kinds in turn: a
 * word of the catalogue, that word with one typo, and two neighbouring words of a listing (one of
 * them misspelt every other time). At 100,000 apps there are far more of these than a run sends,
 * so nearly every request is a query the server has not seen.
 */
export function coldSearchMix(random: Random, listings: { name: string; description: string }[], count: number, exclude: Set<string>): string[] {
  const queries = new Set<string>();
  const words = [...new Set(listings.slice(0, 20_000).flatMap((listing) => wordsOf(`${listing.name} ${listing.description}`.toLowerCase())))].filter(
    (w) => w.length >= 3,
  );
  const add = (query: string) => {
    if (query.trim().length > 0 && !exclude.has(query)) queries.add(query);
  };
  for (let attempt = 0; queries.size < count && attempt < count * 20; attempt += 1) {
    switch (attempt % 3) {
      case 0:
        add(pick(random, words));
        break;
      case 1:
        add(typo(random, pick(random, words)));
        break;
      default: {
        const listing = pick(random, listings);
        const sentence = wordsOf((random() < 0.5 ? listing.name : listing.description).toLowerCase());
        const start = Math.floor(random() * Math.max(1, sentence.length - 1));
        const pair = sentence.slice(start, start + 2);
        if (attempt % 2 === 0 && pair.length === 2) pair[1] = typo(random, pair[1]!);
        add(pair.join(' '));
      }
    }
  }
  return [...queries];
}
