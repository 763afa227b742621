import { afterAll, expect, test } from 'bun:test';
import { loadConfig, PRODUCTION_PASSWORD_HASH_COST, TEST_PASSWORD_HASH_COST } from '../../src/config.ts';
import { hashPassword, usePasswordHashCost } from '../../src/lib/password-hashing.ts';

/** The suite hashes admin passwords lightly (D212); a service outside tests never does. */
afterAll(() => usePasswordHashCost(TEST_PASSWORD_HASH_COST));

test("outside APP_ENV=test admin passwords get argon2id at Bun's own cost; in tests a light one", () => {
  expect(loadConfig({}).passwordHashCost).toEqual(PRODUCTION_PASSWORD_HASH_COST);
  expect(loadConfig({ APP_ENV: 'development' }).passwordHashCost).toEqual(PRODUCTION_PASSWORD_HASH_COST);
  expect(loadConfig({ APP_ENV: 'test' }).passwordHashCost).toEqual(TEST_PASSWORD_HASH_COST);
  expect(PRODUCTION_PASSWORD_HASH_COST).toEqual({ memoryCost: 65_536, timeCost: 2 });
});

test('a hash carries its cost: one made at either cost verifies whichever is in use', async () => {
  usePasswordHashCost(PRODUCTION_PASSWORD_HASH_COST);
  const strong = await hashPassword('correct horse battery staple');
  expect(strong).toStartWith('$argon2id$v=19$m=65536,t=2,p=1$');
  usePasswordHashCost(TEST_PASSWORD_HASH_COST);
  const light = await hashPassword('correct horse battery staple');
  expect(light).toStartWith('$argon2id$v=19$m=1024,t=1,p=1$');
  expect(await Bun.password.verify('correct horse battery staple', strong)).toBe(true);
  usePasswordHashCost(PRODUCTION_PASSWORD_HASH_COST);
  expect(await Bun.password.verify('correct horse battery staple', light)).toBe(true);
  expect(await Bun.password.verify('wrong horse', light)).toBe(false);
});
