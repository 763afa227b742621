import { expect, test } from 'bun:test';
import { createTestApp, type TestApp } from './harness.ts';
import { createPublicCatalogue } from '../../src/modules/catalogue/public-catalogue.ts';
import type { CatalogueReaders } from '../../src/lib/sql-reader.ts';

/**
 * The suite runs every file in one process, whose modules keep their variables to the end: a
 * service that stays reachable after its file is done is ~6 MB more heap for every later
 * collection to walk (the run's heap once passed 1 GB). What is closed or dropped is collected.
 */
async function collected(refs: WeakRef<object>[]): Promise<boolean> {
  // A closed service's last timers and sockets settle within moments; up to 2 s is allowed.
  for (let round = 0; round < 20; round += 1) {
    await Bun.sleep(100);
    Bun.gc(true);
    if (refs.every((ref) => ref.deref() === undefined)) return true;
  }
  return false;
}

/** Made in a frame of its own, so no stack slot of the test holds the readers. */
function dropCatalogueOver(): WeakRef<object> {
  const readers = {
    all: [{}],
    next: () => {
      throw new Error('never read');
    },
  };
  createPublicCatalogue(readers as unknown as CatalogueReaders);
  return new WeakRef(readers);
}

test('a public catalogue no one holds is collected, with the readers it reads through', async () => {
  const refs = [dropCatalogueOver(), dropCatalogueOver(), dropCatalogueOver()];
  expect(await collected(refs)).toBe(true);
});

test("a closed test app lets go of its service, though the file's variables keep the app", async () => {
  const kept: TestApp[] = [];
  const refs: WeakRef<object>[] = [];
  for (let i = 0; i < 3; i += 1) {
    const t = await createTestApp();
    await t.call('GET', '/api/apps');
    refs.push(new WeakRef(t.ctx.orm), new WeakRef(t.runtime));
    kept.push(t);
    await t.close();
  }
  expect(kept).toHaveLength(3);
  // Elysia's plugins shared by every app (a module's `apiModels`) point to the last app that used
  // them, so the newest service may stay until the next replaces it: one, not one a file.
  expect(await collected(refs.slice(0, 4))).toBe(true);
  await expect(kept[0]!.call('GET', '/api/apps')).rejects.toThrow('this test app is closed');
});
