import { expect, test } from 'bun:test';
import { ConnectionWaitExceeded, createConnectionGate } from '../../src/lib/connection-wait.ts';

/**
 * A pool's gate (D224): requests are served first come, first served; a read no request waits for
 * (an answer replaced in the background) goes behind every waiting request and holds at most half
 * the permits, so a burst of them never leaves a request without a connection.
 */
test('background reads hold at most half the permits and wait behind every request', async () => {
  const gate = createConnectionGate(4, 5_000);
  const background = [await gate.acquire(true), await gate.acquire(true)];
  // Two permits are free, but a third background read waits for one of its own kind to end…
  const answered: string[] = [];
  const thirdBackground = gate.acquire(true).then((release) => (answered.push('background'), release));
  expect(gate.waiting).toBe(1);
  // …while requests take the free ones at once.
  const requests = [await gate.acquire(), await gate.acquire()];
  const waitingRequest = gate.acquire().then((release) => (answered.push('request'), release));
  expect(gate.waiting).toBe(2);
  // A background permit given back goes to the waiting request, though the background read waited first…
  background[0]!();
  const granted = await waitingRequest;
  expect(answered).toEqual(['request']);
  // …and a request's, with no request waiting, to the background read (one of its kind is running: under half).
  requests[0]!();
  const grantedBackground = await thirdBackground;
  expect(answered).toEqual(['request', 'background']);
  expect(gate.waiting).toBe(0);
  for (const release of [granted, grantedBackground, requests[1]!, background[1]!]) release();
  // Every permit is back: four requests at once.
  const all = await Promise.all([gate.acquire(), gate.acquire(), gate.acquire(), gate.acquire()]);
  expect(gate.waiting).toBe(0);
  for (const release of all) release();
});

test('a pool of one still lets a background read run when no request waits; a wait past the bound is refused', async () => {
  const gate = createConnectionGate(1, 50);
  const release = await gate.acquire(true);
  // Giving a permit back twice gives it back once.
  release();
  release();
  const again = await gate.acquire(true);
  expect(await gate.acquire().catch((error: unknown) => error)).toBeInstanceOf(ConnectionWaitExceeded);
  expect(gate.waiting).toBe(0);
  again();
  (await gate.acquire())();
});
