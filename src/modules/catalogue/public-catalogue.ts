import { cacheableBody, type CacheableBody } from '../../http/cacheable.ts';
import type { CatalogueReaders, SqlReader } from '../../lib/sql-reader.ts';
import { createVersionClock } from '../../lib/version-clock.ts';
import { createVersionedCache, type Loaded } from '../../lib/versioned-cache.ts';
import { onCatalogueVersionBumped, readCatalogueVersion } from './catalogue-version.ts';
import { countListed } from './catalogue-list.ts';
import { filterKey } from './catalogue-order.ts';
import { getPublicApp, listCatalogue, listCategoryCounts, listFeatured } from './catalogue.service.ts';
import type { CatalogueQuery, FeaturedQuery } from './catalogue.model.ts';

/**
 * The public catalogue as this process serves it: serialised responses in a size-bounded LRU
 * cache, keyed by the normalised query and valid while the catalogue version they were read at is
 * current. The version is re-read at most every `VERSION_MAX_AGE_MS`, so a change is served by
 * every process within that (well inside the 1 s the contract allows). Every entry is built from
 * the public mappers alone: nothing owner-only can be in it.
 */
export const VERSION_MAX_AGE_MS = 250;
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
const MAX_RESPONSES = 50_000;
const MAX_TOTALS = 1_000;

export function createPublicCatalogue(readers: CatalogueReaders) {
  const clock = createVersionClock(() => readCatalogueVersion(readers.next()), VERSION_MAX_AGE_MS);
  onCatalogueVersionBumped(() => clock.expire());
  const responses = createVersionedCache<CacheableBody>(clock, {
    maxEntries: MAX_RESPONSES,
    maxSize: MAX_RESPONSE_BYTES,
    sizeOf: (cached) => cached.body.length,
  });
  const totals = createVersionedCache<{ total: number }>(clock, { maxEntries: MAX_TOTALS });

  /** Reads the version first and the data after it, on the same server: the data is at least that new. */
  const load =
    (work: (reader: SqlReader, version: number) => Promise<unknown>) =>
    async (): Promise<Loaded<CacheableBody>> => {
      const reader = readers.next();
      const version = await readCatalogueVersion(reader);
      return { version, value: cacheableBody(await work(reader, version)) };
    };

  return {
    list(query: CatalogueQuery): Promise<CacheableBody> {
      const search = query.search?.trim().toLowerCase();
      const sort = query.sort ?? (search ? 'relevance' : 'installs');
      const key = `list|${filterKey(query)}|${sort}|${query.page ?? 1}|${query.limit ?? 20}|${search ?? ''}`;
      return responses.get(
        key,
        load((reader, version) =>
          listCatalogue(reader, query, async (filter) => {
            const counted = await totals.get(filterKey(filter), async () => ({ version, value: { total: await countListed(reader, filter) } }));
            return counted.total;
          }),
        ),
      );
    },
    app(slug: string): Promise<CacheableBody> {
      return responses.get(`app|${slug}`, load((reader) => getPublicApp(reader, slug)));
    },
    featured(query: FeaturedQuery): Promise<CacheableBody> {
      const key = `featured|${query.environment ?? ''}|${query.limit ?? 20}`;
      return responses.get(key, load(async (reader) => ({ data: await listFeatured(reader, query) })));
    },
    categories(): Promise<CacheableBody> {
      return responses.get('categories', load(async (reader) => ({ data: await listCategoryCounts(reader) })));
    },
  };
}

export type PublicCatalogue = ReturnType<typeof createPublicCatalogue>;
