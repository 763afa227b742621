/** How the console writes times, durations and counts: UTC, to the minute, never locale-dependent. */
export function formatTime(value: Date | string | null | undefined): string {
  if (!value) return '—';
  return `${new Date(value).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `3 d 4 h`, `5 h 12 min`, `7 min`, `< 1 min`. */
export function formatDuration(milliseconds: number): string {
  const minutes = Math.floor(Math.max(0, milliseconds) / 60_000);
  if (minutes < 1) return '< 1 min';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes % 60} min`;
  return `${minutes} min`;
}

export const formatCount = (value: number) => value.toLocaleString('en-US');

export const plural = (count: number, one: string, many = `${one}s`) => `${formatCount(count)} ${count === 1 ? one : many}`;

/** Labels for the few stored values whose words are not simply the value in sentence case. */
const STATUS_WORDS: Record<string, string> = { OK: 'OK', AI_ML: 'AI & ML' };

/** A stored status (`PENDING_VERIFICATION`) as people read it (`Pending verification`). */
export const statusLabel = (value: string) => STATUS_WORDS[value] ?? value.charAt(0) + value.slice(1).toLowerCase().replaceAll('_', ' ');
