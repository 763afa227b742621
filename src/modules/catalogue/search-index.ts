import { recordSearchIndexApps } from '../../lib/metrics.ts';
import { namedSql } from '../../lib/named-sql.ts';
import { widened } from '../../lib/widened.ts';
import type { SqlReader } from '../../lib/sql-reader.ts';
import type { CatalogueFilter } from './catalogue-order.ts';
import { IdColumn, NameColumn } from './slot-keys.ts';
import { forEachOnce, indexIn, SlotList } from './slot-list.ts';
import { lexemeTerm, orRank, sortedLexemes, textRank, withTerm, type FoundPositions } from './text-rank.ts';
import { WordDictionary } from './word-dictionary.ts';
import { editionOf, STEM_PROBES } from '../../lib/english-stem.ts';
import type { WordRow } from './search-words.ts';
// Raw SQL here is batch work (D106, D199): the search rows and dictionary words that changed since the last reading.

/**
 * The searchable catalogue in this process's memory (D199): each visible app's words (the lexemes
 * of its `app_search` vector a search can ask for, with their positions and weights), its
 * lower-cased name, filters and active installs. A search finds its candidates here (exact names,
 * then the most installed apps holding every group of words, at most `candidates`) and ranks them
 * with `ts_rank` computed to the bit, so PostgreSQL only reads the page's rows. The SQL search
 * (`catalogue-search.ts`) gives the same answers and serves when the index cannot.
 *
 * It follows `app_search` by reading the rows changed since its last reading (the migration
 * `search_index_changes` says why none is skipped): the first reading in the background from the
 * first search on (the SQL search answers until it is done), then, before a search answers, when
 * the catalogue version has moved past it or when its last reading is `COUNTS_MAX_AGE_MS` old;
 * and in the background, no search waiting for it, when the process has learnt of new counters
 * since (`counter-changes.ts`: the install counts it orders by; D219), and between searches, so
 * the first after a pause does not wait for the counts that moved meanwhile (`keepFresh`, D224).
 */
/** A reading older than this is renewed before a search answers, whatever the process has learnt (the contract gives counters 5 s). */
const COUNTS_MAX_AGE_MS = 4_000;
/** How long after the last search the index goes on renewing its reading on its own (`keepFresh`). */
const KEEP_FRESH_MS = 5 * 60_000;
/** Rows per statement of a reading: the process never holds more than this many vectors' text at once. */
const READ_BATCH = 5_000;

const NO_APP = '00000000-0000-0000-0000-000000000000';
/** The horizon before any reading: every transaction is at or after it. */
const FIRST_READING = '0';

/** Only such lexemes can be asked for: a search's words are runs of letters and digits (`searchWords`). */
const QUERYABLE = /^[\p{L}\p{N}]+$/u;

export interface IndexedQuery {
  /** The lexemes of each group of words: an app matches when it holds one of every group's. */
  groups: string[][];
  /** The search as typed, trimmed and lower-cased: an app of exactly that name comes first. */
  exact: string;
  filter: CatalogueFilter;
  candidates: number;
  /** Whether to rank (relevance), or leave the candidates in install order for a sort of the wide rows. */
  ranked: boolean;
  /** Of ranked candidates, how many of the best are wanted in order (the end of the page asked for); all when absent. */
  upTo?: number;
}

/**
 * A search's candidates in order: the apps' ids (of ranked ones, the first `upTo`), the first
 * `exactNames` of them named exactly as the search; `total` counts them all.
 */
export interface IndexedCandidates {
  ids: string[];
  exactNames: number;
  total: number;
  /** When the reading whose install counts ordered them started (`performance.now()`); absent when not from the index. */
  countedAt?: number;
}

/** One row of `app_search` as a reading returns it (`id` null: the reading found no change). */
interface ChangedRow {
  version: string;
  horizon: string;
  id: string | null;
  xid: string | null;
  visible: boolean;
  lower_name: string;
  category: string;
  environment: string;
  featured: boolean;
  install_count: number;
  vector: string;
}

/** `bits` of a float32 as an unsigned integer: for numbers ≥ 0 they order as the numbers do. */
const float32Bits = (() => {
  const float = new Float32Array(1);
  const bits = new Uint32Array(float.buffer);
  return (value: number) => {
    float[0] = value;
    return bits[0]!;
  };
})();

/** Where each slot's document is, and what ranking it needs besides. */
interface Documents {
  arena: Uint32Array;
  positions: Uint16Array;
  docStart: Int32Array;
  emptyVector: Uint8Array;
  orderOf: Int32Array;
}

/**
 * Sort keys pack a count, or an exact name's flag and a rank's bits, above an order of at most
 * 2^22 apps (4 million), within a double's exact integers. A rank is below 2 (an OR query's term
 * for one lexeme is at most (1 + π²/6) / (π²/6), an AND query's rank at most 1), so its float's
 * bits are below 2^30.
 */
const ORDER_BITS = 2 ** 22;
const EXACT_NAME = 2 ** 30;
/** The order a sort key packs in its low bits. */
const orderIn = (key: number) => key % ORDER_BITS;

/**
 * The `k` greatest of `keys` (distinct, none negative), greatest first: one pass keeping the best
 * k when they are few of many (a page of a thousand candidates), else a sort of the whole.
 */
function greatest(keys: Float64Array, k: number): Float64Array {
  if (k * 8 >= keys.length) return keys.sort().reverse().subarray(0, k);
  const best = new Float64Array(k).fill(-1);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key <= best[k - 1]!) continue;
    let at = k - 1;
    for (; at > 0 && best[at - 1]! < key; at--) best[at] = best[at - 1]!;
    best[at] = key;
  }
  return best;
}

/** The key of a candidate at `c` of rank `rank`: exact names first, then the rank, then the install order. */
const relevanceKey = (c: number, exactNames: number, rank: number, order: number) =>
  ((c < exactNames ? EXACT_NAME : 0) + float32Bits(rank)) * ORDER_BITS + (ORDER_BITS - 1 - order);

/**
 * Each candidate's key for relevance into `keys`, for a query whose rank is an OR of its lexemes
 * (one group of words): the sum of each lexeme's term, kept beside the candidate's posting, so no
 * document is read. `lists` holds each of the query's sorted lexemes' postings (undefined where no
 * app holds it). A loop over typed arrays only, which the JIT compiles tightly.
 */
function orRelevanceKeys(
  lists: (SlotList | undefined)[],
  { emptyVector, orderOf }: Documents,
  candidates: number[],
  exactNames: number,
  keys: Float64Array,
): void {
  for (let c = 0; c < candidates.length; c++) {
    const slot = candidates[c]!;
    let terms = 0;
    for (let p = 0; p < lists.length; p++) {
      const list = lists[p];
      const at = list === undefined ? -1 : indexIn(list.slots, list.size, slot);
      if (at >= 0) terms = withTerm(terms, list!.terms[at]!);
    }
    keys[c] = relevanceKey(c, exactNames, orRank(terms, lists.length, emptyVector[slot] ? 0 : 1), orderOf[slot]!);
  }
}

/**
 * Each candidate's key for relevance into `keys`, for a query of two groups or more (an AND,
 * ranked by how near its words are): the positions come from each candidate's document.
 * `queryPlace` gives each of the query's lexeme ids its place among the query's `places` sorted lexemes.
 */
function andRelevanceKeys(
  { arena, positions, docStart, emptyVector, orderOf }: Documents,
  candidates: number[],
  exactNames: number,
  queryPlace: Int8Array,
  places: number,
  keys: Float64Array,
): void {
  const found: FoundPositions = { positions, starts: new Int32Array(places), counts: new Int32Array(places), size: places };
  const { starts, counts } = found;
  for (let c = 0; c < candidates.length; c++) {
    const slot = candidates[c]!;
    let at = docStart[slot]!;
    const entries = arena[at++]!;
    for (let e = 0; e < entries; e++) {
      const header = arena[at]!;
      const place = queryPlace[header >>> 9]!;
      if (place >= 0) {
        starts[place] = (at + 1) * 2;
        counts[place] = header & 0x1ff;
      }
      at += 1 + (((header & 0x1ff) + 1) >> 1);
    }
    keys[c] = relevanceKey(c, exactNames, textRank(found, true, emptyVector[slot] ? 0 : 1), orderOf[slot]!);
    counts.fill(0);
  }
}

export function createSearchIndex(reader: () => SqlReader) {
  // Per slot (a visible app); freed slots are reused.
  let capacity = 0;
  let nextSlot = 0;
  const free: number[] = [];
  /** Whether a slot holds an app (freed ones do not). */
  let held = new Uint8Array(0);
  let apps = 0;
  const ids = new IdColumn();
  const names = new NameColumn();
  let installs = new Int32Array(0);
  let categories = new Uint8Array(0);
  let environments = new Uint8Array(0);
  let featured = new Uint8Array(0);
  let vectorHashes = new BigUint64Array(0);
  let emptyVector = new Uint8Array(0);
  let marks = new Uint8Array(0);
  /** Each slot's document in one arena of 32-bit words: the entry count, then per entry a header (lexeme id << 9 | position count) and its positions, two to a word. */
  let docStart = new Int32Array(0);
  let arena = new Uint32Array(1 << 16);
  let halves = new Uint16Array(arena.buffer);
  let arenaUsed = 0;
  let arenaGarbage = 0;
  const lexemeIds = new Map<string, number>();
  const postings: SlotList[] = [];
  const filterValues = new Map<string, number>();
  const filterValue = (value: string) => {
    let id = filterValues.get(value);
    if (id === undefined) filterValues.set(value, (id = filterValues.size + 1));
    return id;
  };
  // The visible apps, most installed first (ties: the greater id first), as the SQL search orders candidates.
  let order = new Int32Array(0);
  let orderOf = new Int32Array(0);
  let orderStale = true;
  let idRanks = new Int32Array(0);
  let idsStale = true;

  let version = -1;
  let horizon = FIRST_READING;
  let refreshedAt = -Infinity;
  let refreshing: Promise<void> | undefined;

  const grow = (needed: number) => {
    if (needed <= capacity) return;
    capacity = Math.max(needed, capacity * 2, 1024);
    installs = widened(installs, capacity);
    categories = widened(categories, capacity);
    environments = widened(environments, capacity);
    featured = widened(featured, capacity);
    vectorHashes = widened(vectorHashes, capacity);
    emptyVector = widened(emptyVector, capacity);
    held = widened(held, capacity);
    docStart = widened(docStart, capacity);
    marks = new Uint8Array(capacity);
  };

  const docLength = (slot: number) => {
    let at = docStart[slot]!;
    const count = arena[at++]!;
    for (let e = 0; e < count; e++) at += 1 + (((arena[at]! & 0x1ff) + 1) >> 1);
    return at - docStart[slot]!;
  };

  /** Copies every live document but `skipped`'s into an arena of `length` words, dropping the garbage. */
  const relocate = (length: number, skipped = -1) => {
    const next = new Uint32Array(length);
    let used = 0;
    for (let slot = 0; slot < nextSlot; slot++) {
      if (!held[slot] || slot === skipped) continue;
      const size = docLength(slot);
      next.set(arena.subarray(docStart[slot]!, docStart[slot]! + size), used);
      docStart[slot] = used;
      used += size;
    }
    arena = next;
    halves = new Uint16Array(arena.buffer);
    arenaUsed = used;
    arenaGarbage = 0;
  };

  const lexemeId = (lexeme: string) => {
    let id = lexemeIds.get(lexeme);
    if (id === undefined) {
      id = postings.length;
      lexemeIds.set(lexeme, id);
      postings.push(new SlotList());
    }
    return id;
  };

  /**
   * Writes `slot`'s document (its old one, if any, already dropped) straight from the vector's text
   * form (`'word':1A,4B 'other':2`) and adds the slot to its lexemes' postings; returns how many
   * lexemes the vector has (those no search can ask for included).
   */
  const writeDoc = (slot: number, text: string): number => {
    // A lexeme takes at least four characters of the text and a position two: enough words for the worst case.
    const room = 2 + (text.length >> 1);
    if (arenaUsed + room > arena.length) {
      const live = arenaUsed - arenaGarbage + room;
      relocate(Math.max(1 << 16, live + (live >> 1)), slot);
    }
    const start = arenaUsed;
    let at = start + 1;
    let entries = 0;
    let size = 0;
    let i = 0;
    while (i < text.length) {
      if (text[i] !== "'") {
        i++;
        continue;
      }
      const from = ++i;
      let escaped = false;
      // Quotes and backslashes are doubled inside a lexeme.
      for (; text[i] !== "'" || text[i + 1] === "'"; i++) {
        if ((text[i] === "'" || text[i] === '\\') && text[i + 1] === text[i]) {
          escaped = true;
          i++;
        }
      }
      const lexeme = escaped ? text.slice(from, i).replace(/''/g, "'").replace(/\\\\/g, '\\') : text.slice(from, i);
      i++;
      size++;
      const queryable = QUERYABLE.test(lexeme);
      let positions = 0;
      if (text[i] === ':') {
        do {
          i++;
          let position = 0;
          for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) position = position * 10 + c - 48;
          const weight = 'DCBA'.indexOf(text[i]!);
          if (weight >= 0) i++;
          if (queryable) halves[(at + 1) * 2 + positions++] = (Math.max(weight, 0) << 14) | position;
        } while (text[i] === ',');
      }
      if (!queryable) continue;
      const id = lexemeId(lexeme);
      postings[id]!.add(slot, lexemeTerm(halves, (at + 1) * 2, positions));
      // PostgreSQL keeps at most 256 positions of a lexeme, which 9 bits hold.
      arena[at] = (id << 9) | positions;
      at += 1 + ((positions + 1) >> 1);
      entries++;
    }
    arena[start] = entries;
    docStart[slot] = start;
    arenaUsed = at;
    return size;
  };

  const dropDoc = (slot: number) => {
    let at = docStart[slot]!;
    const count = arena[at++]!;
    for (let e = 0; e < count; e++) {
      postings[arena[at]! >>> 9]!.remove(slot);
      at += 1 + (((arena[at]! & 0x1ff) + 1) >> 1);
    }
    arenaGarbage += docLength(slot);
  };

  const remove = (id: string) => {
    const slot = ids.slotOf(id);
    if (slot === undefined) return;
    dropDoc(slot);
    names.delete(slot);
    ids.delete(slot);
    held[slot] = 0;
    apps--;
    free.push(slot);
    orderStale = idsStale = true;
  };

  /** A changed row: an app no longer visible leaves, a new one comes in; words are parsed again only when they changed. */
  const apply = (row: ChangedRow & { id: string }) => {
    if (!row.visible) return remove(row.id);
    const hash = BigInt(Bun.hash.wyhash(row.vector));
    let slot = ids.slotOf(row.id);
    if (slot === undefined || vectorHashes[slot] !== hash) {
      if (slot === undefined) {
        slot = free.pop() ?? nextSlot++;
        grow(slot + 1);
        ids.set(slot, row.id);
        held[slot] = 1;
        apps++;
        orderStale = idsStale = true;
      } else {
        dropDoc(slot);
      }
      emptyVector[slot] = writeDoc(slot, row.vector) === 0 ? 1 : 0;
      vectorHashes[slot] = hash;
    }
    names.set(slot, row.lower_name);
    countAt(slot, row.install_count);
    categories[slot] = filterValue(row.category);
    environments[slot] = filterValue(row.environment);
    featured[slot] = row.featured ? 1 : 0;
  };

  /** Sorts the visible apps again after installs or membership changed: numeric keys, sorted natively. */
  const sortOrder = () => {
    if (idsStale) {
      const sorted = new Int32Array(apps);
      for (let slot = 0, k = 0; slot < nextSlot; slot++) if (held[slot]) sorted[k++] = slot;
      sorted.sort((a, b) => ids.compare(a, b));
      idRanks = new Int32Array(capacity);
      sorted.forEach((slot, rank) => {
        idRanks[slot] = rank;
      });
      idsStale = false;
    }
    const keys = new Float64Array(apps);
    const slotByIdRank = new Int32Array(apps);
    let k = 0;
    for (let slot = 0; slot < nextSlot; slot++) {
      if (!held[slot]) continue;
      keys[k++] = Math.max(0, installs[slot]!) * ORDER_BITS + idRanks[slot]!;
      slotByIdRank[idRanks[slot]!] = slot;
    }
    keys.sort();
    order = new Int32Array(keys.length);
    orderOf = new Int32Array(capacity);
    for (let i = 0; i < keys.length; i++) {
      const slot = slotByIdRank[orderIn(keys[keys.length - 1 - i]!)]!;
      order[i] = slot;
      orderOf[slot] = i;
    }
    orderStale = false;
  };

  /**
   * A batch of the rows whose words, name, visibility or filters changed at or after `since` (a
   * transaction id), in (transaction, app) order after `after`. The batch's ids come from the index
   * alone: the generic plan would otherwise sort (and print the vector of) every row left first.
   */
  const readChanged = (since: string, after: { xid: string; id: string }) =>
    reader().query<ChangedRow>(
      namedSql(
        `select h.version::text as version, h.horizon, c.*
         from (select (select version from catalogue_version) as version, pg_snapshot_xmin(pg_current_snapshot())::text as horizon) h
         left join lateral (
           select s.app_id::text as id, s.changed_xid::text as xid, s.visible, s.lower_name, s.category, s.environment, s.featured,
                  coalesce(st.active_installs, 0) as install_count, s.search_vector::text as vector
           from app_search s left join app_stats st on st.app_id = s.app_id
           where s.app_id = any(array(
             select b.app_id from app_search b where b.changed_xid >= :since::xid8 and (b.changed_xid, b.app_id) > (:xid::xid8, :after::uuid)
             order by b.changed_xid, b.app_id limit ${READ_BATCH}))
           order by s.changed_xid, s.app_id) c on true`,
        { since, xid: after.xid, after: after.id },
      ),
    );
  /** The dictionary's words added at or after `since` (D205): a word once added stays. */
  const readWords = (since: string) =>
    reader().query<{ word: string }>(namedSql(`select word from catalogue_words where added_xid >= :since::xid8`, { since }));
  const dictionary = new WordDictionary();
  /** The server's own stems of the probe words: which edition of the stemmer it has. */
  const readStemmerEdition = async () => {
    const answers = await reader().query<{ word: string; lexemes: string[] }>(
      namedSql(`select w as word, ts_lexize('english_stem', w) as lexemes from unnest(:words::text[]) w`, { words: STEM_PROBES }),
    );
    return editionOf(new Map(answers.map((answer) => [answer.word, answer.lexemes])));
  };
  /** The install counts of the stats rows written at or after `since`: a roll-up's thousands of rows, without their words. */
  const readCounted = (since: string) =>
    reader().query<{ id: string; install_count: number }>(
      namedSql(`select s.app_id::text as id, s.active_installs as install_count from app_stats s where s.counted_xid >= :since::xid8`, { since }),
    );

  const countAt = (slot: number, installCount: number) => {
    if (installs[slot] === installCount) return;
    installs[slot] = installCount;
    orderStale = true;
  };
  const count = (id: string, installCount: number) => {
    const slot = ids.slotOf(id);
    if (slot !== undefined) countAt(slot, installCount);
  };

  /**
   * Reads what changed since the last reading: words and the rest in batches (the first reading:
   * every app), then install counts. The version and horizon are the first batch's, so whatever
   * changed while the rest was read is read again next time.
   */
  const refresh = () => {
    refreshing ??= (async () => {
      try {
        const startedAt = performance.now();
        const since = horizon;
        let rows = await readChanged(since, { xid: since, id: NO_APP });
        const reading = { version: Number(rows[0]!.version), horizon: rows[0]!.horizon };
        for (;;) {
          for (const row of rows) if (row.id !== null) apply(row as ChangedRow & { id: string });
          if (rows.length < READ_BATCH) break;
          const last = rows[rows.length - 1]!;
          rows = [];
          // A bulk reading (the first, or after a seed) leaves a batch of parsed rows behind each
          // time: collected now, they do not pile up into the process's peak memory.
          Bun.gc(true);
          rows = await readChanged(since, { xid: last.xid!, id: last.id! });
        }
        // The first reading's rows carried their counts.
        if (since !== FIRST_READING) for (const row of await readCounted(since)) count(row.id, row.install_count);
        for (const { word } of await readWords(since)) dictionary.add(word);
        if (since === FIRST_READING) dictionary.edition = await readStemmerEdition();
        // Room for what comes next, not the growth's slack (the first reading's doublings left up to half).
        if (arena.length > arenaUsed + (arenaUsed >> 2) + (1 << 16)) relocate(Math.max(1 << 16, arenaUsed + (arenaUsed >> 3)));
        if (since === FIRST_READING) for (const list of postings) list.resize(list.size + (list.size >> 3));
        version = reading.version;
        horizon = reading.horizon;
        refreshedAt = startedAt;
        recordSearchIndexApps(apps);
      } finally {
        refreshing = undefined;
      }
    })();
    return refreshing;
  };

  /** A group of words as the postings of its lexemes (an app matches the group when one holds it), with their total length. */
  const postingsOf = (lexemes: string[]): { lists: SlotList[]; size: number } => {
    const lists = lexemes.flatMap((lexeme) => {
      const list = postings[lexemeIds.get(lexeme) ?? -1];
      if (list === undefined || list.size === 0) return [];
      list.indexDense();
      return [list];
    });
    return { lists, size: lists.reduce((sum, list) => sum + list.size, 0) };
  };

  /** Per lexeme id, its place among a query's sorted lexemes while the query is ranked (-1: not in it). */
  let queryPlace = new Int8Array(0);

  const find = (query: IndexedQuery): IndexedCandidates => {
    if (orderStale) sortOrder();
    const category = query.filter.category ? (filterValues.get(query.filter.category) ?? -1) : 0;
    const environment = query.filter.environment ? (filterValues.get(query.filter.environment) ?? -1) : 0;
    const wantFeatured = query.filter.featured === undefined ? -1 : query.filter.featured ? 1 : 0;
    const passes = (slot: number) =>
      (category === 0 || categories[slot] === category) &&
      (environment === 0 || environments[slot] === environment) &&
      (wantFeatured === -1 || featured[slot] === wantFeatured);
    const exactSlots = names.slotsNamed(query.exact);
    // An app named exactly as the search is among the exact names, not the matches.
    const qualifies = (slot: number) => passes(slot) && (exactSlots.length === 0 || !exactSlots.includes(slot));

    const bound = query.candidates;
    const exact = exactSlots
      .filter(passes)
      .sort((a, b) => orderOf[a]! - orderOf[b]!)
      .slice(0, bound);
    const groups = query.groups.map(postingsOf).sort((a, b) => a.size - b.size);
    const [rarest, ...others] = groups;
    const inGroup = (group: { lists: SlotList[] }, slot: number) => {
      for (let l = 0; l < group.lists.length; l++) if (group.lists[l]!.has(slot)) return true;
      return false;
    };
    const inOthers = (slot: number) => {
      for (let g = 0; g < others.length; g++) if (!inGroup(others[g]!, slot)) return false;
      return true;
    };
    const matched: number[] = [];
    // Sorting n matches, or walking about bound × apps / n of the most installed: whichever is shorter.
    if (rarest && rarest.size * rarest.size <= bound * order.length) {
      // Few matches: take them all, then the most installed. The rarest group's apps are visited in
      // slot order, each once (its lists often hold the same apps: a word and its stem), so the
      // others' lists are searched forward from where the last search stopped (`hasAscending`).
      const cursors = others.map((group) => new Int32Array(group.lists.length));
      const inOthersAscending = (slot: number) => {
        for (let g = 0; g < others.length; g++) {
          const { lists } = others[g]!;
          const cursor = cursors[g]!;
          let holds = false;
          for (let l = 0; l < lists.length && !holds; l++) holds = lists[l]!.hasAscending(slot, cursor, l);
          if (!holds) return false;
        }
        return true;
      };
      const places = new Int32Array(rarest.size);
      let found = 0;
      forEachOnce(rarest.lists, (slot) => {
        if (qualifies(slot) && inOthersAscending(slot)) places[found++] = orderOf[slot]!;
      });
      const sorted = places.subarray(0, found).sort();
      for (let i = 0; i < found && matched.length < bound; i++) matched.push(order[sorted[i]!]!);
    } else if (rarest) {
      // Many: walk the apps from the most installed until the bound. A common word's list answers
      // membership from its bitmap (`SlotList.has`); when lists without one (words in fewer than
      // one app in 32) would make a long walk of binary searches, every posting is marked first:
      // `marks[slot]` counts the groups (in order) that hold the app.
      const steps = (bound * order.length) / rarest.size;
      const searches = groups.reduce((sum, group) => sum + group.lists.filter((list) => !list.dense).length, 0) * 16;
      const marked = steps * searches > 2 * groups.reduce((sum, group) => sum + group.size, 0);
      if (marked) {
        groups.forEach((group, g) => {
          for (const { slots, size } of group.lists) for (let i = 0; i < size; i++) if (marks[slots[i]!] === g) marks[slots[i]!] = g + 1;
        });
      }
      for (let i = 0; i < order.length && matched.length < bound; i++) {
        const slot = order[i]!;
        if ((marked ? marks[slot] === groups.length : inGroup(rarest, slot) && inOthers(slot)) && qualifies(slot)) matched.push(slot);
      }
      if (marked) for (const group of groups) for (const { slots, size } of group.lists) for (let i = 0; i < size; i++) marks[slots[i]!] = 0;
    }
    const candidates = exact.concat(matched.slice(0, bound - exact.length));
    if (!query.ranked) return { ids: candidates.map((slot) => ids.idOf(slot)), exactNames: exact.length, total: candidates.length };

    // Relevance: exact names first, then ts_rank, then the install order.
    const lexemes = sortedLexemes(query.groups.flat()).map((lexeme) => lexemeIds.get(lexeme) ?? -1);
    const keys = new Float64Array(candidates.length);
    const documents = { arena, positions: halves, docStart, emptyVector, orderOf };
    if (query.groups.length >= 2 && lexemes.length >= 2) {
      if (queryPlace.length < postings.length) queryPlace = new Int8Array(postings.length * 2).fill(-1);
      lexemes.forEach((id, place) => {
        if (id >= 0) queryPlace[id] = place;
      });
      andRelevanceKeys(documents, candidates, exact.length, queryPlace, lexemes.length, keys);
      for (const id of lexemes) if (id >= 0) queryPlace[id] = -1;
    } else {
      orRelevanceKeys(
        lexemes.map((id) => (id >= 0 ? postings[id] : undefined)),
        documents,
        candidates,
        exact.length,
        keys,
      );
    }
    // Only the page's ids are looked up: a page is 20 of up to a thousand candidates.
    const ranked = Array.from(greatest(keys, query.upTo ?? keys.length), (key) => ids.idOf(order[ORDER_BITS - 1 - orderIn(key)]!));
    return { ids: ranked, exactNames: exact.length, total: candidates.length };
  };

  // Held by `search` and, weakly, by the timer (`keepFresh`): an index no one holds stops renewing.
  const keeper = {
    searchedAt: -Infinity,
    refreshIfDue() {
      const now = performance.now();
      if (version >= 0 && !refreshing && now - this.searchedAt < KEEP_FRESH_MS && now - refreshedAt > COUNTS_MAX_AGE_MS / 2)
        refresh().catch(() => {});
    },
  };
  keepFresh(keeper);

  /**
   * Whether the index could be brought past `behind`, reading at most twice; never before the
   * first reading is done (a second or two at 100,000 apps, in the background: no search waits for it).
   */
  const readTo = async (behind: () => boolean): Promise<boolean> => {
    if (version < 0) {
      if (!refreshing) refresh().catch(() => {});
      return false;
    }
    for (let tries = 0; behind(); tries++) {
      if (tries === 2) return false;
      await refresh();
    }
    return true;
  };

  return {
    /**
     * The candidates of a search, ranked when asked, from the index as of `atVersion` or newer;
     * undefined when it cannot be brought that far (a replica behind the version this process has
     * seen), or before its first reading is done. Counters learnt after the index's last reading
     * (`countedSince`, when the process last learnt of new ones, `performance.now()`) are read in
     * the background, as is a reading half `COUNTS_MAX_AGE_MS` old: the search answers at once by
     * the counts it has, at most `COUNTS_MAX_AGE_MS` old, and says when they were read
     * (`countedAt`), so an answer kept from it is read again once newer ones are in (D219).
     */
    async search(query: IndexedQuery, atVersion: number, countedSince = -Infinity): Promise<IndexedCandidates | undefined> {
      const now = performance.now();
      keeper.searchedAt = now;
      const age = now - refreshedAt;
      if (version >= 0 && !refreshing && (refreshedAt <= countedSince || age > COUNTS_MAX_AGE_MS / 2)) refresh().catch(() => {});
      const current = await readTo(() => version < atVersion || performance.now() - refreshedAt > COUNTS_MAX_AGE_MS);
      return current ? { ...find(query), countedAt: refreshedAt } : undefined;
    },
    /**
     * What the dictionary says of each word (as `search-words.ts` reads it from PostgreSQL), from
     * the index's copy as of `atVersion` or newer; undefined when the copy cannot answer (as for
     * `search`, or a word only PostgreSQL makes lexemes of).
     */
    async words(asked: string[], atVersion: number): Promise<WordRow[] | undefined> {
      return (await readTo(() => version < atVersion)) ? dictionary.rows(asked) : undefined;
    },
    /** The apps it holds. */
    get size() {
      return apps;
    },
  };
}

/**
 * Between searches the index's counts age too, and the first search after a pause would wait for a
 * reading of every count that moved meanwhile (tens of thousands after a burst of installs, D224):
 * once a second the index renews a reading half `COUNTS_MAX_AGE_MS` old, until `KEEP_FRESH_MS` after
 * its last search. The timer holds the index weakly and never keeps the process alive.
 */
function keepFresh(keeper: { refreshIfDue(): void }): void {
  const held = new WeakRef(keeper);
  const timer = setInterval(() => {
    const index = held.deref();
    if (index) index.refreshIfDue();
    else clearInterval(timer);
  }, COUNTS_MAX_AGE_MS / 4);
  timer.unref();
}
