import { recordCatalogueCacheHit, recordCatalogueCacheMiss } from '../../lib/metrics.ts';
import { LRUCache } from 'lru-cache';
import { cacheableBody, type CacheableBody } from '../../http/cacheable.ts';
import type { CatalogueReaders, SqlReader } from '../../lib/sql-reader.ts';
import { createVersionClock } from '../../lib/version-clock.ts';
import { createVersionedCache, type Loaded } from '../../lib/versioned-cache.ts';
import { expireOnCatalogueVersionBump, readCatalogueVersion } from './catalogue-version.ts';
import { appIdsIn, createCounterChanges } from './counter-changes.ts';
import { countListed } from './catalogue-list.ts';
import { filterKey } from './catalogue-order.ts';
import { getPublicApp, listCatalogue, listCategoryCounts, listFeatured } from './catalogue.service.ts';
import { createSearchIndex } from './search-index.ts';
import { lookUpWords, type LookUpWords, type WordInfo } from './search-words.ts';
import type { CatalogueQuery, FeaturedQuery } from './catalogue.model.ts';

/**
 * The public catalogue as this process serves it: serialised responses in a size-bounded LRU
 * cache, keyed by the normalised query and valid while the catalogue version they were read at is
 * current and no app they show has had its counters change since (`counter-changes.ts`). The version is re-read every `VERSION_MAX_AGE_MS` while requests come (in the
 * background; a reading more than three times that old is waited for), so a change is served by
 * every process well inside the 1 s the contract allows. Every entry is built from the public
 * mappers alone: nothing owner-only can be in it.
 */
export const VERSION_MAX_AGE_MS = 250;
/**
 * The caches' bounds. Serialised bodies are counted in bytes (the process's peak, measured by the
 * bench, is in the README): room for the bench's warm search mix (17.5 MB) with its lists and
 * slugs (D218). The entry counts bound what each answer carries besides its body (its key, app ids,
 * target): 50,000 one-off searches' worth of those took the process past 380 MB at 100,000 apps.
 * Searches asked once are remembered by a hash of their key, and only a repeat is kept (D182, D218).
 */
export const CATALOGUE_CACHE_BOUNDS = {
  responseBytes: 24 * 1024 * 1024,
  responses: 10_000,
  totals: 1_000,
  words: 20_000,
  knownUrls: 20_000,
  askedSearches: 50_000,
};

/** A cached answer, with what its counters need to be checked against (`counter-changes.ts`). */
interface CachedAnswer extends CacheableBody {
  appIds: string[];
  loadedAt: number;
}

/**
 * What a request asks of the catalogue. Known targets keep it, plain data rather than a closure per
 * target (up to 20,000 of them), so the answer can be read again when its counters move (D185).
 */
type Question =
  | { kind: 'list'; query: CatalogueQuery }
  | { kind: 'app'; slug: string }
  | { kind: 'featured'; query: FeaturedQuery }
  | { kind: 'categories' };
const CATEGORIES: Question = { kind: 'categories' };

export function createPublicCatalogue(readers: CatalogueReaders, bounds = CATALOGUE_CACHE_BOUNDS) {
  const clock = createVersionClock(() => readCatalogueVersion(readers.next()), VERSION_MAX_AGE_MS);
  expireOnCatalogueVersionBump(clock);
  const counters = createCounterChanges(() => readers.next());
  const responses = createVersionedCache<CachedAnswer>(clock, {
    maxEntries: bounds.responses,
    maxSize: bounds.responseBytes,
    sizeOf: (cached) => cached.body.size,
    outdated: (cached) => counters.outdated(cached.appIds, cached.loadedAt),
  });
  const totals = createVersionedCache<{ total: number }>(clock, { maxEntries: bounds.totals });
  const searchIndex = createSearchIndex(() => readers.next());
  // What the dictionary says about each search word: most searches repeat words, so most misses skip that query.
  const words = createVersionedCache<WordInfo>(clock, { maxEntries: bounds.words });
  const lookUpCached =
    (reader: SqlReader, version: number): LookUpWords =>
    async (asked) => {
      const found = new Map<string, WordInfo>();
      const missing = asked.filter((word) => {
        const known = words.peek(word);
        if (known) found.set(word, known);
        return !known;
      });
      const looked = await lookUpWords(reader, missing, version, (wanted) => searchIndex.words(wanted, version));
      for (const [word, info] of looked) {
        found.set(word, info);
        words.put(word, { version, value: info });
      }
      return found;
    };
  // Request targets that were validated and answered from `responses` under a key, with how to read
  // that answer again: a repeat of the same target can be answered before routing and validation (`cached`).
  const knownTargets = new LRUCache<string, { key: string; question: Question }>({ max: bounds.knownUrls });
  const askedSearches = new LRUCache<number, true>({ max: bounds.askedSearches });
  /** Whether this search was asked before: a first one is answered but not kept, most are never asked again (D218). */
  const askedBefore = (key: string) => {
    const hash = Bun.hash.crc32(key);
    if (askedSearches.has(hash)) return true;
    askedSearches.set(hash, true);
    return false;
  };
  /** `counts.readAt`: when the counts the answer shows or orders by were read; a search ranked by an older index reading says so (D219). */
  const readAnswer = (question: Question, reader: SqlReader, version: number, counts: { readAt: number }): Promise<unknown> => {
    switch (question.kind) {
      case 'list':
        return listCatalogue(
          reader,
          question.query,
          async (filter) => {
            const counted = await totals.get(filterKey(filter), async () => ({ version, value: { total: await countListed(reader, filter) } }));
            return counted.total;
          },
          lookUpCached(reader, version),
          async (indexed) => {
            const found = await searchIndex.search(indexed, version, counters.lastLearntAt());
            if (found?.countedAt !== undefined) counts.readAt = Math.min(counts.readAt, found.countedAt);
            return found;
          },
        );
      case 'app':
        return getPublicApp(reader, question.slug);
      case 'featured':
        return listFeatured(reader, question.query).then((data) => ({ data }));
      case 'categories':
        return listCategoryCounts(reader).then((data) => ({ data }));
    }
  };
  /**
   * The data is tagged with a version read before it on the same server, so it is at least that
   * new. With one server the clock's own reading is such a version; with replicas each load reads
   * the version on the replica it reads the data from, so a lagging one cannot pass old rows off as new.
   */
  const single = readers.all.length === 1;
  const load = async (question: Question, current: number, inBackground: boolean): Promise<Loaded<CachedAnswer>> => {
    const counts = { readAt: performance.now() };
    // A replacement read in the background lets the requests that wait for their reads go first.
    const reader = inBackground ? readers.next().inBackground : readers.next();
    const version = single ? current : await readCatalogueVersion(reader);
    const value = await readAnswer(question, reader, version, counts);
    return { version, value: { ...cacheableBody(value), appIds: appIdsIn(value), loadedAt: counts.readAt } };
  };
  const answer = async (target: string, key: string, question: Question, keep = true): Promise<CacheableBody> => {
    counters.tick();
    let missed = false;
    const body = await responses.get(
      key,
      (current, inBackground) => {
        missed = true;
        return load(question, current, inBackground);
      },
      keep,
    );
    // The request that read the database is the miss; others sharing its load, or answered from the cache, are hits.
    if (missed) recordCatalogueCacheMiss();
    else recordCatalogueCacheHit();
    if (keep) knownTargets.set(target, { key, question });
    return body;
  };

  return {
    /**
     * The cached answer to a request target seen before, without waiting for anything; else
     * undefined. One whose counters moved is answered too while one read replaces it (D185).
     */
    cached(target: string): CacheableBody | undefined {
      counters.tick();
      const known = knownTargets.get(target);
      if (!known) return undefined;
      let read = false;
      const body = responses.peek(known.key, (current, inBackground) => {
        read = true;
        return load(known.question, current, inBackground);
      });
      // As in `answer`: the request that started a read of PostgreSQL is the miss.
      if (body) (read ? recordCatalogueCacheMiss : recordCatalogueCacheHit)();
      return body;
    },
    list(target: string, query: CatalogueQuery): Promise<CacheableBody> {
      const search = query.search?.trim().toLowerCase();
      const sort = query.sort ?? (search ? 'relevance' : 'installs');
      const key = `list|${filterKey(query)}|${sort}|${query.page ?? 1}|${query.limit ?? 20}|${search ?? ''}`;
      return answer(target, key, { kind: 'list', query }, !search || askedBefore(key));
    },
    app(target: string, slug: string): Promise<CacheableBody> {
      return answer(target, `app|${slug}`, { kind: 'app', slug });
    },
    featured(target: string, query: FeaturedQuery): Promise<CacheableBody> {
      const key = `featured|${query.environment ?? ''}|${query.limit ?? 20}`;
      return answer(target, key, { kind: 'featured', query });
    },
    categories(target: string): Promise<CacheableBody> {
      return answer(target, 'categories', CATEGORIES);
    },
  };
}

export type PublicCatalogue = ReturnType<typeof createPublicCatalogue>;
