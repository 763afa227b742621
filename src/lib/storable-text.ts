/**
 * Text PostgreSQL cannot store: a NUL (refused by `text` and `jsonb`) and lone UTF-16
 * surrogates (which it would silently turn into U+FFFD while the response echoed the original).
 * Returns what is wrong, in words, or null for text that round-trips.
 */
export function unstorableText(text: string): string | null {
  if (!text.isWellFormed()) return 'contains a lone UTF-16 surrogate, which is not valid text';
  if (text.includes('\u0000')) return 'contains a NUL character';
  return null;
}
