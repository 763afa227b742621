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
