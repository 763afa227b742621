import { afterAll, expect, test } from 'bun:test';
import { assertFetchableUrl, safeFetch, SafeFetchError } from '../../src/lib/safe-fetch.ts';
import { startReceiver } from './receiver.ts';

/** What webhook delivery asks of the guarded fetch beyond GETs: a POST body, no redirects, the status of a failure. */
const receiver = startReceiver();
afterAll(() => receiver.stop());
const options = { allowPrivate: true, maxBytes: 1024, timeoutMs: 2_000, maxRedirects: 0, method: 'POST' as const };

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => {
      if (!(error instanceof SafeFetchError)) throw error;
      return { reason: error.reason, status: error.status };
    },
  );

test('POSTs the body with the given headers over the default ones', async () => {
  const body = JSON.stringify({ hello: 'wörld' });
  const result = await safeFetch(receiver.url('/post'), {
    ...options,
    body,
    headers: { 'content-type': 'application/json', 'user-agent': 'test/1', 'x-extra': 'yes' },
  });
  expect(result.status).toBe(200);
  const [request] = receiver.at('/post');
  expect(request!.body).toBe(body);
  expect(request!.headers).toMatchObject({
    'content-type': 'application/json',
    'user-agent': 'test/1',
    'x-extra': 'yes',
    'content-length': String(Buffer.byteLength(body)),
  });
});

test('with maxRedirects 0 a redirect is refused with its status, and its target is never asked', async () => {
  receiver.answer('/moved', () => new Response(null, { status: 307, headers: { location: receiver.url('/target') } }));
  expect(await refusal(safeFetch(receiver.url('/moved'), { ...options, body: '{}' }))).toEqual({ reason: 'redirect not followed', status: 307 });
  expect(receiver.at('/target')).toEqual([]);
});

test('a non-2xx answer fails with its status; a failure without an answer has none', async () => {
  receiver.answer('/broken', 500);
  expect(await refusal(safeFetch(receiver.url('/broken'), { ...options, body: '{}' }))).toEqual({ reason: 'bad status 500', status: 500 });
  expect(await refusal(safeFetch('http://127.0.0.1:9/closed', { ...options, body: '{}' }))).toEqual({
    reason: 'connection refused',
    status: undefined,
  });
});

test("assertFetchableUrl runs the first hop's checks without fetching", async () => {
  expect(await refusal(assertFetchableUrl('http://127.0.0.1/hook', { allowPrivate: false, timeoutMs: 1_000 }))).toMatchObject({
    reason: 'blocked address',
  });
  expect(await refusal(assertFetchableUrl('http://[::ffff:10.0.0.1]/hook', { allowPrivate: false, timeoutMs: 1_000 }))).toMatchObject({
    reason: 'blocked address',
  });
  expect(await refusal(assertFetchableUrl('gopher://example.com/', { allowPrivate: false, timeoutMs: 1_000 }))).toMatchObject({
    reason: 'unsupported scheme',
  });
  const before = receiver.received.length;
  await assertFetchableUrl(receiver.url('/never'), { allowPrivate: true, timeoutMs: 1_000 });
  expect(receiver.received.length).toBe(before);
});
