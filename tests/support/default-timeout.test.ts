import { beforeAll, expect, test } from 'bun:test';

// Not the suite's first file, so it proves the preload's default reaches every file: under Bun's
// own 5 s default this hook (and so the file) fails.
let waited = 0;
beforeAll(async () => {
  const started = performance.now();
  await Bun.sleep(5_200);
  waited = performance.now() - started;
});

test('a hook or test may take longer than 5 s in any file of the suite', () => {
  expect(waited).toBeGreaterThan(5_000);
});
