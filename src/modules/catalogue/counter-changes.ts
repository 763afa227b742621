import { namedSql } from '../../lib/named-sql.ts';
import type { SqlReader } from '../../lib/sql-reader.ts';
// Raw SQL here is the hot public read (D106): the poll that keeps cached answers' counters fresh.

/**
 * Counters (installs, reviews, ratings) change by the thousand while the rest of a listing stays
 * put, so their roll-ups do not move the catalogue version (which would empty every cache).
 * Instead each process asks PostgreSQL, at most every `COUNTERS_POLL_MS` while requests come, which
 * apps' stats rows changed since its last poll (`app_stats.counted_xid`, set by trigger on every
 * update, indexed), and a cached answer that shows one of those apps and was loaded before this
 * process learnt of the change is loaded again, while readers keep getting it until the new one is
 * read (D184). A new count is therefore served within a roll-up (about 2 s after the install) plus
 * one poll and one read, inside the 5 s the contract allows, and an install touches only the cached
 * answers that show its app, without making any reader wait.
 *
 * A poll asks for the rows written by transactions at or after the last poll's horizon (the oldest
 * transaction its snapshot saw running): every change the last poll could not see is among them,
 * and a change is read again only while an older transaction holds the horizon back (D230).
 */
export const COUNTERS_POLL_MS = 500;
/** Answers older than this are loaded again whatever changed, so changes older than it can be forgotten. */
export const ANSWER_MAX_AGE_MS = 5 * 60_000;
/**
 * How often the forgetting is done: a walk of every change known (100,000 after a burst of installs
 * over the catalogue: 2–10 ms of the event loop) twice a second was work for nothing; a change kept
 * a little longer only outlives answers that are loaded again anyway.
 */
const FORGET_EVERY_MS = ANSWER_MAX_AGE_MS / 10;

interface Change {
  /** The transaction that wrote the row (`counted_xid`): a change seen again is recorded once. */
  xid: number;
  /** When this process learnt of it (`performance.now()`). */
  learntAt: number;
}

export function createCounterChanges(reader: () => SqlReader) {
  const changes = new Map<string, Change>();
  let lastLearntAt = -Infinity;
  /** The last poll's horizon: undefined until the first poll, which has no earlier one to read from. */
  let horizon: string | undefined;
  /** When the first poll was answered: what was loaded before it may carry a change no poll reports, so it is loaded again. */
  let firstLearntAt = -Infinity;
  let lastPoll = -Infinity;
  let lastForgotten = -Infinity;
  let polling = false;

  const poll = async () => {
    polling = true;
    lastPoll = performance.now();
    try {
      const rows = await reader().query<{ horizon: string; app_id: string | null; xid: string | null }>(
        namedSql(
          `select pg_snapshot_xmin(pg_current_snapshot())::text as horizon, s.app_id::text as app_id, s.counted_xid::text as xid
           from (select 1) one left join app_stats s on s.counted_xid >= :since::xid8`,
          { since: horizon ?? null },
        ),
      );
      const learntAt = performance.now();
      for (const row of rows) {
        if (row.app_id === null || row.xid === null) continue;
        const xid = Number(row.xid);
        const known = changes.get(row.app_id);
        if (!known || xid > known.xid) {
          changes.set(row.app_id, { xid, learntAt });
          lastLearntAt = learntAt;
        }
      }
      if (horizon === undefined) {
        firstLearntAt = learntAt;
        lastLearntAt = learntAt;
      }
      horizon = rows[0]!.horizon;
      if (learntAt - lastForgotten >= FORGET_EVERY_MS) {
        lastForgotten = learntAt;
        for (const [appId, change] of changes) if (learntAt - change.learntAt > ANSWER_MAX_AGE_MS) changes.delete(appId);
      }
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
      if (appIds.length === 0) return false;
      if (loadedAt < firstLearntAt) return true;
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
