import { expect, test } from 'bun:test';
import { describeChaos, runChaos } from '../../bench/chaos.ts';

/**
 * The chaos bench, short: reads, installs and developer writes from 16 connections with the
 * database stopped for 2 s in the middle. Nothing acknowledged is lost, nothing is a 500, and the
 * service works again by itself soon after the database returns. (`bun run bench:chaos` is the
 * full 30 s at 64 connections.)
 */
test('a database restart under mixed load loses no acknowledged install and answers no 500', async () => {
  const figures = await runChaos({ seconds: 8, connections: 16, apps: 100, downSeconds: 2, log: () => {} });
  console.info(`chaos (short):\n${describeChaos(figures)}`);
  // Enough installs for "none lost" to mean something; how many is the machine's speed (79 on a loaded one).
  expect(figures.installsAcknowledged).toBeGreaterThan(20);
  expect(figures.lostInstalls).toBe(0);
  expect(figures.serverErrors500).toBe(0);
  expect(figures.byStatus['503'] ?? 0).toBeGreaterThan(0);
  expect(figures.slowestWhileDownMs).toBeLessThan(2_000);
  expect(figures.recoveredMs).toBeLessThan(5_000);
}, 90_000);
