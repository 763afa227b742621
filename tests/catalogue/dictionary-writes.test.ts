import { afterAll, beforeAll, expect, test } from 'bun:test';
import pg from 'pg';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper } from '../support/fixtures.ts';
import { eventually } from '../support/eventually.ts';

/**
 * Listings written side by side that bring the same new words to the dictionary (the words typo
 * correction offers) must all be written. Each transaction holds the words it added until it
 * commits, so two that added them in different orders waited on each other and PostgreSQL ended
 * one with a deadlock: a 500 when two developers created listings at once. The tests make the
 * writers meet: a transaction holds one of the new words, every writer queues behind it (having
 * added the words it reached first), and then it lets go.
 */
let t: TestApp;
let developer: string;
beforeAll(async () => {
  t = await createTestApp();
  developer = await insertDeveloper(t);
});
afterAll(() => t.close());

const WRITERS = 6;
// The same new words for every writer, plus one of each writer's own: the sets differ, so an
// order that depends on the set (a hash) differs between writers.
const wordsOf = (round: string, writer: number) =>
  `${['amber', 'basalt', 'cobalt', 'dune', 'ember', 'fjord', 'garnet', 'heron'].map((word) => `${word}${round}`).join(' ')} solo${round}x${writer}`;

/** Runs the writers while another transaction holds `word`, lets go once all of them wait, and returns what each ended with. */
async function whileAWordIsHeld(word: string, writers: () => Promise<unknown>[]): Promise<string[]> {
  const holder = new pg.Client({ connectionString: t.runtime.databaseUrl });
  await holder.connect();
  try {
    await holder.query('begin');
    await holder.query('insert into catalogue_words (word) values ($1)', [word]);
    const ended = Promise.allSettled(writers());
    await eventually(async () => {
      const waiting = await t.sql(`select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
      return waiting.length === WRITERS;
    });
    // Rolled back: the writers add the held word themselves.
    await holder.query('rollback');
    return (await ended).filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason));
  } finally {
    await holder.end();
  }
}

test('listings created at once with the same new words are all written, and each word is in the dictionary once', async () => {
  for (const round of ['a', 'b', 'c']) {
    const failures = await whileAWordIsHeld(`ember${round}`, () =>
      Array.from({ length: WRITERS }, (_, writer) =>
        insertApp(t, { developerId: developer, name: `Writer ${writer}`, description: wordsOf(round, writer) }),
      ),
    );
    expect(failures).toEqual([]);
  }
  const words = await t.sql<{ word: string }>(`select word from catalogue_words where word ~ '^(ember|solo)[abc]' order by word`);
  expect(words).toHaveLength(3 + 3 * WRITERS);
});

test('listings edited at once to the same new words are all written', async () => {
  const apps = await Promise.all(Array.from({ length: WRITERS }, (_, writer) => insertApp(t, { developerId: developer, name: `Edited ${writer}` })));
  for (const round of ['p', 'q', 'r']) {
    const failures = await whileAWordIsHeld(`ember${round}`, () =>
      apps.map((app, writer) => t.sql('update apps set description = ? where id = ?', [wordsOf(round, writer), app.id])),
    );
    expect(failures).toEqual([]);
  }
});
