import { afterAll } from 'bun:test';
import { startTestDatabase, stopTestDatabase } from './database.ts';

// The test runner's environment is read here, once, like the service's config.
await startTestDatabase(process.env.TEST_DATABASE_URL || undefined);
afterAll(stopTestDatabase);
