import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, spyOn, test } from 'bun:test';
import dns from 'node:dns/promises';
import http from 'node:http';
import { safeFetch, SafeFetchError, type SafeFetchOptions } from '../../src/lib/safe-fetch.ts';
import { readImageFacts } from '../../src/modules/assets/asset-rules.ts';
import { image, redirect, startImageServer, type ImageServer } from './image-server.ts';
import { jpeg, png } from './images.ts';

const LOGO = png(512, 512);
const MiB = 1024 * 1024;
const limits = { maxBytes: MiB, timeoutMs: 2_000, maxRedirects: 3 };
const local: SafeFetchOptions = { ...limits, allowPrivate: true };
const guarded: SafeFetchOptions = { ...limits, allowPrivate: false };

/** Stalled responses wait on this; released when the file ends. */
let releaseStalled!: () => void;
const stalled = new Promise<void>((resolve) => (releaseStalled = resolve));

function chunked(chunkBytes: number, count: number, thenStall = false): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      if (sent === count) {
        if (thenStall) await stalled;
        return controller.close();
      }
      sent += 1;
      controller.enqueue(new Uint8Array(chunkBytes));
    },
  });
}

let server: ImageServer;
let closedPort: number;

beforeAll(async () => {
  server = startImageServer({
    '/logo.png': image(LOGO, 'image/png'),
    '/photo.jpg': image(jpeg(1280, 720), 'image/jpeg'),
    '/hop/0': image(LOGO, 'image/png'),
    '/hop/1': redirect('/hop/0', 301),
    '/hop/2': redirect('/hop/1', 307),
    '/hop/3': redirect((s) => `${s.origin}/hop/2`, 308),
    '/hop/4': redirect('/hop/3', 303),
    '/loop': redirect('/loop'),
    '/no-location': () => new Response(null, { status: 302 }),
    '/to-file': redirect('file:///etc/passwd'),
    '/missing': () => new Response('gone', { status: 404 }),
    '/broken': () => new Response('oops', { status: 500 }),
    '/big': () => new Response(new Uint8Array(2 * MiB), { headers: { 'content-type': 'application/octet-stream' } }),
    '/big-streamed': () => new Response(chunked(64 * 1024, 40)),
    // A real 2 MiB-plus PNG: its size is in the first bytes, so reading can stop early.
    '/huge.png': () => new Response(new Blob([png(512, 512), new Uint8Array(3 * MiB)]), { headers: { 'content-type': 'image/png' } }),
    '/slow-headers': async () => {
      await stalled;
      return new Response('late');
    },
    '/slow-body': () => new Response(chunked(1024, 1, true)),
    '/public/to-loopback': redirect('http://127.0.0.1/logo.png'),
    '/public/to-internal': redirect('http://internal.example/logo.png'),
    '/public/to-split': redirect('http://split.example/logo.png'),
    '/public/to-mapped': redirect('http://[::ffff:7f00:1]/logo.png'),
    '/public/to-metadata': redirect('http://169.254.169.254/latest/meta-data/'),
    '/public/to-odd-port': redirect('http://cdn.example:8080/logo.png'),
  });
  const closed = startImageServer({});
  closedPort = closed.port;
  await closed.stop();
});

afterAll(async () => {
  releaseStalled();
  await server.stop();
});

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught) => caught,
  );
  expect(error).toBeInstanceOf(SafeFetchError);
  return (error as SafeFetchError).reason;
}

describe('safeFetch against a local server (private addresses allowed)', () => {
  test('returns the status, content type and exact bytes', async () => {
    const result = await safeFetch(`${server.origin}/logo.png`, local);
    expect(result.status).toBe(200);
    expect(result.contentType).toBe('image/png');
    expect(result.bytes).toEqual(LOGO);
    expect(result.finalUrl).toBe(`${server.origin}/logo.png`);
    expect(result.partial).toBe(false);
  });

  test('follows up to maxRedirects redirects, relative or absolute, and reports the final URL', async () => {
    const result = await safeFetch(`${server.origin}/hop/3`, local);
    expect(result.finalUrl).toBe(`${server.origin}/hop/0`);
    expect(readImageFacts(result.bytes)).toEqual({ format: 'png', width: 512, height: 512 });
  });

  test('refuses one redirect more than maxRedirects without requesting its target', async () => {
    const before = server.hits.length;
    expect(await refusal(safeFetch(`${server.origin}/hop/4`, local))).toBe('too many redirects');
    expect(server.hits.slice(before)).toEqual(['/hop/4', '/hop/3', '/hop/2', '/hop/1']);
  });

  test('stops a redirect loop', async () => {
    const before = server.hits.length;
    expect(await refusal(safeFetch(`${server.origin}/loop`, local))).toBe('too many redirects');
    expect(server.hits.length - before).toBe(4);
  });

  test('refuses redirects without a location or to a non-http scheme', async () => {
    expect(await refusal(safeFetch(`${server.origin}/no-location`, local))).toBe('redirect without location');
    expect(await refusal(safeFetch(`${server.origin}/to-file`, local))).toBe('unsupported scheme');
  });

  test('reports error statuses', async () => {
    expect(await refusal(safeFetch(`${server.origin}/missing`, local))).toBe('bad status 404');
    expect(await refusal(safeFetch(`${server.origin}/broken`, local))).toBe('bad status 500');
  });

  test('refuses bodies larger than maxBytes, declared or streamed', async () => {
    expect(await refusal(safeFetch(`${server.origin}/big`, local))).toBe('too large');
    expect(await refusal(safeFetch(`${server.origin}/big-streamed`, local))).toBe('too large');
  });

  test('stops reading once `enough` is satisfied, even when the body exceeds maxBytes', async () => {
    const result = await safeFetch(`${server.origin}/huge.png`, { ...local, enough: (bytes) => readImageFacts(bytes) !== null });
    expect(result.partial).toBe(true);
    expect(result.bytes.length).toBeLessThan(MiB);
    expect(readImageFacts(result.bytes)).toEqual({ format: 'png', width: 512, height: 512 });
    expect(await refusal(safeFetch(`${server.origin}/big`, { ...local, enough: () => false }))).toBe('too large');
  });

  test('reads a whole small body even when `enough` never says yes', async () => {
    const result = await safeFetch(`${server.origin}/photo.jpg`, { ...local, enough: () => false });
    expect(result.partial).toBe(false);
    expect(readImageFacts(result.bytes)).toEqual({ format: 'jpg', width: 1280, height: 720 });
  });

  test('gives up on a server that does not answer, or stalls mid-body', async () => {
    const quick = { ...local, timeoutMs: 300 };
    expect(await refusal(safeFetch(`${server.origin}/slow-headers`, quick))).toBe('timeout');
    expect(await refusal(safeFetch(`${server.origin}/slow-body`, quick))).toBe('timeout');
  });

  test('reports a refused connection', async () => {
    expect(await refusal(safeFetch(`http://127.0.0.1:${closedPort}/logo.png`, local))).toBe('connection refused');
  });

  test('reaches IPv6 literals', async () => {
    const v6 = startImageServer({ '/logo.png': image(LOGO, 'image/png') }, '::1');
    try {
      const result = await safeFetch(`${v6.origin}/logo.png`, local);
      expect(result.bytes).toEqual(LOGO);
    } finally {
      await v6.stop();
    }
  });
});

describe('safeFetch input checks', () => {
  test('refuses what is not an http(s) URL', async () => {
    expect(await refusal(safeFetch('not a url', local))).toBe('invalid url');
    expect(await refusal(safeFetch('file:///etc/passwd', local))).toBe('unsupported scheme');
    expect(await refusal(safeFetch('ftp://example.com/logo.png', local))).toBe('unsupported scheme');
    expect(await refusal(safeFetch('data:image/png;base64,AAAA', local))).toBe('unsupported scheme');
  });
});

describe('safeFetch with private addresses refused', () => {
  test.each([
    ['loopback', (s: ImageServer) => `${s.origin}/logo.png`],
    ['localhost', (s: ImageServer) => `http://localhost:${s.port}/logo.png`],
    ['IPv6 loopback', (s: ImageServer) => `http://[::1]:${s.port}/logo.png`],
    ['IPv4-mapped loopback', (s: ImageServer) => `http://[::ffff:127.0.0.1]:${s.port}/logo.png`],
    ['a decimal loopback host', (s: ImageServer) => `http://2130706433:${s.port}/logo.png`],
    ['the unspecified address', (s: ImageServer) => `http://0.0.0.0:${s.port}/logo.png`],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a private network', () => 'http://10.0.0.1/logo.png'],
  ])('refuses %s before connecting', async (_name, url) => {
    const before = server.hits.length;
    expect(await refusal(safeFetch(url(server), guarded))).toBe('blocked address');
    expect(server.hits.length).toBe(before);
  });
});

/**
 * No public host is reachable from a test, so one is simulated: `cdn.example` resolves to a
 * public address and its connections are delivered to the local server. Everything else (each
 * hop's checks, the redirects, the pinned connection) runs for real.
 */
describe('safeFetch through a simulated public host, private addresses refused', () => {
  const ANSWERS: Record<string, { address: string; family: number }[]> = {
    'cdn.example': [{ address: '93.184.216.34', family: 4 }],
    'internal.example': [{ address: '10.1.2.3', family: 4 }],
    'split.example': [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ],
  };
  const realRequest = http.request;
  let connections: string[];
  let spies: { mockRestore(): void }[] = [];

  beforeEach(() => {
    connections = [];
    spies = [
      spyOn(dns, 'lookup').mockImplementation((async (host: string) => {
        const answers = ANSWERS[host];
        if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
        return answers;
      }) as unknown as typeof dns.lookup),
      spyOn(http, 'request').mockImplementation(((options: http.RequestOptions, callback: (response: http.IncomingMessage) => void) => {
        connections.push(`${options.host}:${options.port}${options.path}`);
        if (options.host !== 'cdn.example') return realRequest(options, callback);
        const toLocalServer: http.RequestOptions['lookup'] = (_host, lookupOptions, done) =>
          lookupOptions.all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4);
        return realRequest({ ...options, port: server.port, lookup: toLocalServer }, callback);
      }) as unknown as typeof http.request),
    ];
  });
  afterEach(() => spies.forEach((spy) => spy.mockRestore()));

  test('fetches from a public host on the default port', async () => {
    const result = await safeFetch('http://cdn.example/hop/1', guarded);
    expect(result.bytes).toEqual(LOGO);
    expect(result.finalUrl).toBe('http://cdn.example/hop/0');
    expect(connections).toEqual(['cdn.example:80/hop/1', 'cdn.example:80/hop/0']);
  });

  test.each([
    ['loopback', '/public/to-loopback'],
    ['a host resolving to a private network', '/public/to-internal'],
    ['a host with one private answer among public ones', '/public/to-split'],
    ['IPv4-mapped loopback', '/public/to-mapped'],
    ['cloud metadata', '/public/to-metadata'],
  ])('refuses a redirect to %s without connecting to it', async (_name, path) => {
    expect(await refusal(safeFetch(`http://cdn.example${path}`, guarded))).toBe('blocked address');
    expect(connections).toEqual([`cdn.example:80${path}`]);
  });

  test('refuses ports other than 80 and 443, directly or by redirect', async () => {
    expect(await refusal(safeFetch('http://cdn.example:8080/logo.png', guarded))).toBe('port not allowed');
    expect(await refusal(safeFetch('http://cdn.example/public/to-odd-port', guarded))).toBe('port not allowed');
    expect(connections).toEqual(['cdn.example:80/public/to-odd-port']);
  });

  test('refuses a host with any private answer, and reports unknown hosts', async () => {
    expect(await refusal(safeFetch('http://split.example/logo.png', guarded))).toBe('blocked address');
    expect(await refusal(safeFetch('http://nowhere.example/logo.png', guarded))).toBe('dns lookup failed');
    expect(connections).toEqual([]);
  });
});

test('the connection goes to the address that was checked, not to a second lookup', async () => {
  // `pinned.example` exists only in this answer; the real resolver has never heard of it.
  const lookup = spyOn(dns, 'lookup').mockImplementation((async () => [{ address: '127.0.0.1', family: 4 }]) as unknown as typeof dns.lookup);
  try {
    const result = await safeFetch(`http://pinned.example:${server.port}/logo.png`, local);
    expect(result.bytes).toEqual(LOGO);
    expect(lookup).toHaveBeenCalledTimes(1);
  } finally {
    lookup.mockRestore();
  }
});
