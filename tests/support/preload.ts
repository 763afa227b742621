import { afterAll, setDefaultTimeout } from 'bun:test';
import { startTestDatabase, stopTestDatabase } from './database.ts';
import { capturedCounts, leakedSecrets } from './suite-log.ts';

// Tests here start real processes and servers on a shared 2-core machine: 5 s (Bun's default) failed
// tests that spawn a CLI five times whenever the machine was busy. A test that needs longer says so.
setDefaultTimeout(30_000);

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
