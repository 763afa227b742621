/**
 * Waits on a condition instead of a clock: the tests' one way to wait for a job, a delivery or a
 * page to catch up. Polls `check` until it returns a truthy value, for at most 5 s.
 */
export async function eventually<T>(check: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await Bun.sleep(50);
  }
}
