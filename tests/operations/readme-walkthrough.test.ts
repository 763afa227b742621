import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../support/harness.ts';

/**
 * The README's walk-through, run as it is written: its commands are read from README.md and run by
 * bash against a live service (ALLOW_PRIVATE_FETCH=true, as the README starts it) with the demo
 * images of `bun run demo:images`, so the README cannot drift from what the service does. Only the
 * addresses differ (free ports instead of 3000, 4000 and 4001), through the variables the
 * walk-through reads; its CLI commands reach this service's database.
 */
const ROOT = join(import.meta.dir, '../..');
let t: TestApp;
let images: ReturnType<typeof Bun.spawn> | undefined;
let scratch: string;
let ports: { service: number; images: number; hook: number };

async function freePort(): Promise<number> {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
  const port = probe.port!;
  await probe.stop(true);
  return port;
}

async function readmeBlocks(): Promise<string[]> {
  const readme = await Bun.file(join(ROOT, 'README.md')).text();
  const section = readme.slice(readme.indexOf('## Walk-through with curl'), readme.indexOf('## Admin console'));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

beforeAll(async () => {
  ports = { service: await freePort(), images: await freePort(), hook: await freePort() };
  scratch = mkdtempSync(join(tmpdir(), 'walkthrough-'));
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true', PORT: String(ports.service) });
  t.app.listen({ hostname: '127.0.0.1', port: ports.service });
  images = Bun.spawn(['bun', 'run', 'demo:images'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(ports.images) },
    stdout: 'ignore',
    stderr: 'ignore',
  });
  // Started when it serves the logo.
  const started = Date.now() + 15_000;
  while (
    !(await fetch(`http://127.0.0.1:${ports.images}/focus-timer/logo.png`).then(
      (response) => response.ok,
      () => false,
    ))
  ) {
    if (Date.now() > started) throw new Error('bun run demo:images did not start');
    await Bun.sleep(100);
  }
}, 30_000);

afterAll(async () => {
  images?.kill();
  await t.app.stop(true);
  await t.close();
  rmSync(scratch, { recursive: true, force: true });
}, 30_000);

test('the README starts the service with ALLOW_PRIVATE_FETCH and the demo images', async () => {
  const [start] = await readmeBlocks();
  expect(start).toContain('ALLOW_PRIVATE_FETCH=true bun start');
  expect(start).toContain('bun run demo:images');
});

test('the walk-through runs as written: mirrored images, a verified webhook delivery, a review answered, a revision withdrawn', async () => {
  const walkthrough = (await readmeBlocks()).find((block) => block.startsWith('BASE=${BASE:-http://localhost:3000}'));
  expect(walkthrough).toBeDefined();
  const base = `http://localhost:${ports.service}`;
  // Its own process group, so a receiver the script started in the background is stopped with it.
  const run = Bun.spawn(['setsid', 'bash', '-e', '-o', 'pipefail', '-c', walkthrough!], {
    cwd: ROOT,
    env: {
      ...process.env,
      BASE: base,
      IMAGES: `http://127.0.0.1:${ports.images}`,
      HOOK_PORT: String(ports.hook),
      TMPDIR: scratch,
      // The CLI commands of the walk-through reach this service's database and dev identity.
      APP_ENV: 'test',
      DATABASE_URL: t.ctx.config.databaseUrl!,
      DATA_DIR: t.ctx.config.dataDir,
      LOG_LEVEL: 'silent',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const deadline = setTimeout(() => process.kill(-run.pid, 'SIGKILL'), 150_000);
  const [stdout, stderr] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()]);
  const exitCode = await run.exited;
  clearTimeout(deadline);
  try {
    process.kill(-run.pid, 'SIGTERM');
  } catch {
    // The group is gone: the script stopped its receiver itself.
  }
  expect(exitCode, `${stdout}\n${stderr}`).toBe(0);

  // Step 5: warnings come with the submission; step 6: the public logo is the mirrored copy, under PUBLIC_URL.
  expect(stdout).toContain('"status": "PENDING"');
  expect(stdout).toContain('"warnings": [');
  expect(stdout).toMatch(new RegExp(`"logoUrl": "${base}/assets/[0-9a-f]{64}\\.png"`));
  expect(stdout).toContain('logo: 200 image/png');
  // Step 7–8: Grace's review, answered.
  expect(stdout).toContain('"reply": "Thanks! Fixed in 2.1."');
  expect(stdout).toMatch(/"installCount": 1,\s+"reviewCount": 1/);
  // Step 9: the revision proposed, then withdrawn.
  expect(stdout).toContain('"description": "Pomodoro sessions and daily summaries."');
  expect(stdout).toMatch(/"status": "APPROVED",\s+"pendingRevision": null/);
  // Step 10: the receiver verified each signed delivery.
  for (const type of ['ping', 'app.approved', 'review.created']) expect(stdout).toContain(`{"type":"${type}"`);
  expect(stdout).toContain('Focus Timer');
  const [hook] = await t.sql(`select count(*)::int as succeeded from webhook_deliveries where status = 'succeeded'`);
  expect(hook.succeeded).toBe(3);
}, 180_000);
