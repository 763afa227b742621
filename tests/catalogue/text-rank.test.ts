import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { seededRandom, pick } from '../../src/lib/seeded-random.ts';
import { sortedLexemes, textRank } from '../../src/modules/catalogue/text-rank.ts';

/**
 * `textRank` is PostgreSQL's `ts_rank` computed in the process (D199): on vectors built as the
 * apps' are (name in 'simple' and 'english' at weight A, description at B) and queries built as
 * searches are (an OR of each word's lexemes, an AND of the words), it must give the very same
 * float4, since the index orders candidates by it and ties fall to the install count.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { role: 'api' });
});
afterAll(() => t.close());

const WORDS = [
  'task',
  'tasks',
  'team',
  'teams',
  'board',
  'boards',
  'sync',
  'syncing',
  'plan',
  'planner',
  'the',
  'for',
  'and',
  'focus',
  'time',
  'timer',
];

test('ts_rank in the process is PostgreSQL’s to the bit, for OR and AND queries, repeated words and far positions', async () => {
  const random = seededRandom(3);
  const phrase = (length: number) => Array.from({ length }, () => pick(random, WORDS)).join(' ');
  const documents = Array.from({ length: 60 }, (_, i) => ({
    name: phrase(1 + (i % 4)),
    // Some long enough for positions more than 100 apart (the distance at which AND ranks stop adding).
    description: phrase(i % 10 === 0 ? 130 : 3 + (i % 12)),
  }));
  const queries = Array.from({ length: 40 }, (_, i) =>
    Array.from({ length: 1 + (i % 3) }, () => Array.from({ length: 1 + (i % 2) }, () => pick(random, WORDS))),
  );
  // Each query as a search builds it: per group, the words' 'simple' and 'english' lexemes OR-ed; the groups AND-ed.
  const params: unknown[] = [JSON.stringify(documents)];
  const expressions = queries.map((groups, q) => {
    const parts = groups.map((words) => {
      params.push(words.join(' | '), words.join(' | '));
      return `(to_tsquery('simple', ?::text) || to_tsquery('english', ?::text))`;
    });
    return `(${q}, ${parts.join(' && ')})`;
  });
  const rows = await t.sql<{
    d: number;
    q: number;
    rank: number;
    query: string;
    entries: { lexeme: string; positions: number[]; weights: string[] }[];
  }>(
    `with d as (select (x.ordinality - 1)::int as d,
                       setweight(to_tsvector('simple', x.doc->>'name'), 'A') || setweight(to_tsvector('english', x.doc->>'name'), 'A') ||
                       setweight(to_tsvector('english', x.doc->>'description'), 'B') as v
                from jsonb_array_elements(?::jsonb) with ordinality as x(doc, ordinality)),
          q as (select * from (values ${expressions.join(', ')}) as q(q, query))
     select d.d, q.q, ts_rank(d.v, q.query)::float8 as rank, q.query::text as query,
            (select jsonb_agg(jsonb_build_object('lexeme', u.lexeme, 'positions', u.positions, 'weights', u.weights)) from unnest(d.v) u) as entries
     from d, q`,
    params,
  );
  expect(rows.length).toBe(documents.length * queries.length);
  let ranked = 0;
  for (const row of rows) {
    const lexemes = sortedLexemes([...row.query.matchAll(/'([^']+)'/g)].map((match) => match[1]!));
    const positions: number[] = [];
    const starts = new Int32Array(lexemes.length);
    const counts = new Int32Array(lexemes.length);
    for (const entry of row.entries) {
      const place = lexemes.indexOf(entry.lexeme);
      if (place < 0) continue;
      starts[place] = positions.length;
      counts[place] = entry.positions.length;
      entry.positions.forEach((position, i) => positions.push(('DCBA'.indexOf(entry.weights[i]!) << 14) | position));
    }
    const mine = textRank(
      { positions: Uint16Array.from(positions), starts, counts, size: lexemes.length },
      queries[row.q]!.length >= 2,
      row.entries.length,
    );
    expect({ d: row.d, q: row.q, rank: mine }).toEqual({ d: row.d, q: row.q, rank: Math.fround(row.rank) });
    if (row.rank > 0.001) ranked++;
  }
  expect(ranked).toBeGreaterThan(500);
});
