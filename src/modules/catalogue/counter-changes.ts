import { namedSql } from '../../lib/named-sql.ts';
import type { SqlReader } from '../../lib/sql-reader.ts';
// Raw SQL here is the hot public read (D106): the poll that keeps cached answers' counters fresh.

/**
 * Counters (installs, reviews, ratings) change by the thousand while the rest of a listing stays
 * put, so their roll-ups do not move the catalogue version (which would empty every cache).
 * Instead each process asks PostgreSQL, at most every `COUNTERS_POLL_MS` while requests come, which
 * apps' stats rows changed (`app_stats.updated_at`, indexed), and a cached answer that shows one of
 * those apps and was loaded before this process learnt of the change is loaded again, while readers
 * keep getting it until the new one is read (D184). A new count is therefore served within a roll-up
 * (about 2 s after the install) plus one poll and one read, inside the 5 s the contract allows, and an
 * install touches only the cached answers that show its app, without making any reader wait.
 */
export const COUNTERS_POLL_MS = 500;
/**
 * How far back each poll looks again: a roll-up's rows carry the time its transaction started but
 * become visible when it commits. A change seen twice is recorded once (by its `updated_at`).
 */
const COMMIT_MARGIN_MS = 5_000;
/** Answers older than this are loaded again whatever changed, so changes older than it can be forgotten. */
export const ANSWER_MAX_AGE_MS = 5 * 60_000;

interface Change {
  /** The row's `updated_at`, in ms. */
  at: number;
  /** When this process learnt of it (`performance.now()`). */
  learntAt: number;
}

export function createCounterChanges(reader: () => SqlReader) {
  const changes = new Map<string, Change>();
  let lastLearntAt = -Infinity;
  let polledAt: number | undefined;
  let lastPoll = -Infinity;
  let polling = false;

  const poll = async () => {
    polling = true;
    lastPoll = performance.now();
    try {
      const rows = await reader().query<{ now_ms: number; app_id: string | null; at: number | null }>(
        namedSql(
          `select extract(epoch from statement_timestamp()) * 1000 as now_ms, s.app_id::text as app_id,
                  extract(epoch from s.updated_at) * 1000 as at
           from (select 1) one left join app_stats s
             on s.updated_at > coalesce(to_timestamp(:since::float8 / 1000), statement_timestamp()) - make_interval(secs => :margin::float8 / 1000)`,
          { since: polledAt ?? null, margin: COMMIT_MARGIN_MS },
        ),
      );
      const learntAt = performance.now();
      for (const row of rows) {
        if (row.app_id === null || row.at === null) continue;
        const known = changes.get(row.app_id);
        if (!known || Number(row.at) > known.at) {
          changes.set(row.app_id, { at: Number(row.at), learntAt });
          lastLearntAt = learntAt;
        }
      }
      polledAt = Number(rows[0]!.now_ms);
      for (const [appId, change] of changes) if (learntAt - change.learntAt > ANSWER_MAX_AGE_MS) changes.delete(appId);
    } catch {
      // The next request tries again; until then answers keep the counters they have.
    } finally {
      polling = false;
    }
  };

  return {
    /** Starts a poll when one is due; never waits for it. */
    tick(): void {
      if (!polling && performance.now() - lastPoll >= COUNTERS_POLL_MS) void poll();
    },
    /** When this process last learnt of a change (`performance.now()`): what reads counters after it must have been read since. */
    lastLearntAt(): number {
      return lastLearntAt;
    },
    /** Whether an answer showing `appIds`, loaded at `loadedAt` (`performance.now()`), has counters this process knows to be old. */
    outdated(appIds: readonly string[], loadedAt: number): boolean {
      if (performance.now() - loadedAt > ANSWER_MAX_AGE_MS) return true;
      // Nothing learnt since the answer was loaded: none of its apps can have moved (most asks, once a poll has passed).
      if (lastLearntAt <= loadedAt) return false;
      for (const appId of appIds) {
        const change = changes.get(appId);
        if (change && change.learntAt > loadedAt) return true;
      }
      return false;
    },
  };
}

/** The apps an answer shows (an app, or a list of them), whose counters it carries. */
export function appIdsIn(value: unknown): string[] {
  const shown = value as { id?: unknown; data?: { id?: unknown }[] };
  if (Array.isArray(shown.data)) return shown.data.flatMap((app) => (typeof app.id === 'string' ? [app.id] : []));
  return typeof shown.id === 'string' ? [shown.id] : [];
}
