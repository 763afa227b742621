import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { approvedApp, completeApp, DISCLOSURE } from '../apps/fixtures.ts';

/**
 * The owner view is built from the entity (its times are Dates), the public page and card from the
 * catalogue's SQL (its times are already ISO text, passed through as they are: D209). The three
 * must agree on every field they share, and a card is its page without the page's own fields.
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await mintKey(t, await registerDeveloper(t, { name: 'Card Maker' }));
}, 30_000);
afterAll(() => t.close(), 30_000);

const PAGE_FIELDS = ['longDescription', 'longDescriptionHtml', 'screenshots', 'permissions', 'dataHandling'];
// Images may be shown from the mirror in public (the reviewed copies), and only the owner sees the review's state.
const NOT_COMPARED = new Set(['logoUrl', 'bannerUrl', 'screenshots']);

test("an app's card, its page and its owner's view agree on every field they share, times to the millisecond", async () => {
  const approved = await approvedApp(t, key, completeApp({ longDescription: 'All about **timers**.', ...DISCLOSURE }));
  const owner = (await t.call('GET', `/api/dev/apps/${approved.id}`, { token: key })).body;
  const page = (await t.call('GET', `/api/apps/${owner.slug}`)).body;
  const list = (await t.call('GET', `/api/apps?search=${encodeURIComponent(owner.name)}`)).body;
  const card = list.data.find((entry: { id: string }) => entry.id === owner.id);

  const shared = Object.keys(page).filter((field) => field in owner && !NOT_COMPARED.has(field));
  expect(shared).toEqual(expect.arrayContaining(['createdAt', 'updatedAt', 'longDescriptionHtml', 'permissions', 'installCount', 'version']));
  for (const field of shared) expect({ field, value: page[field] }).toEqual({ field, value: owner[field] });
  for (const time of [page.createdAt, page.updatedAt]) expect(new Date(time).toISOString()).toBe(time);

  const pageAsCard = Object.fromEntries(Object.entries(page).filter(([field]) => !PAGE_FIELDS.includes(field)));
  expect(Object.keys(pageAsCard).length).toBeGreaterThan(20);
  expect(card).toEqual(pageAsCard);
});
