// First: the ORM must find this registry when it loads (D198).
import '../../src/lib/raw-fragment-registry.ts';
import { plugin } from 'bun';
import { afterAll } from 'bun:test';
import { startTestDatabase, stopTestDatabase } from './database.ts';
import { capturedCounts, leakedSecrets } from './suite-log.ts';

// Tests and hooks here start real processes and servers on a shared 2-core machine: 5 s (Bun's
// default) failed them whenever the machine was busy. `setDefaultTimeout` holds only for the file
// that calls it (called here, only the first file got it) and Bun has no setting for it that plain
// `bun test` reads, so every test file starts by calling it, on its first line (line numbers hold).
// A test that needs longer says so.
plugin({
  name: 'default-test-timeout',
  setup(build) {
    build.onLoad({ filter: /\.test\.ts$/ }, async ({ path }) => ({
      contents: `import { setDefaultTimeout as setFileTimeout } from 'bun:test'; setFileTimeout(30_000); ${await Bun.file(path).text()}`,
      loader: 'ts',
    }));
  },
});

// The test runner's environment is read here, once, like the service's config.
await startTestDatabase(process.env.TEST_DATABASE_URL || undefined);
afterAll(async () => {
  await stopTestDatabase();
  // The whole run's logs, searched for every secret the tests handled.
  const leaks = leakedSecrets();
  const { lines, secrets } = capturedCounts();
  process.stderr.write(`log secrecy: ${lines} log lines searched for ${secrets} secrets, ${leaks.length} found\n`);
  if (leaks.length > 0) {
    for (const leak of leaks.slice(0, 10))
      process.stderr.write(`  leaked ${leak.secret.slice(0, 6)}…: ${leak.line.replaceAll(leak.secret, '<the secret>').slice(0, 300)}\n`);
    process.exitCode = 1;
    throw new Error(`${leaks.length} secrets reached the logs`);
  }
});
