import dns from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { ipFamily, isPublicAddress } from './ip-address.ts';

/**
 * Fetches a URL a caller supplied without letting it reach the service's own network (SSRF).
 * Bun's `fetch` ignores `lookup`, so it cannot be pinned to a vetted address: every hop is
 * resolved and checked here, and `node:http(s)` connects to exactly the checked address
 * (TLS still verifies the certificate against the URL's host name). Redirects are followed
 * by hand so each one is checked again; bytes and total time are capped.
 */
export interface SafeFetchOptions {
  /** Lifts the public-address and port rules: tests and local development only (refused in production). */
  allowPrivate: boolean;
  maxBytes: number;
  /** For the whole fetch: resolution, every redirect and the body. */
  timeoutMs: number;
  maxRedirects: number;
  /**
   * Lets the caller stop reading early once the bytes so far suffice; asked at 64 KiB and each
   * doubling after it. When given, a body longer than `maxBytes` fails only if this never says yes.
   */
  enough?: (bytes: Uint8Array) => boolean;
  /** GET unless said otherwise (webhook deliveries POST). */
  method?: 'GET' | 'POST';
  /** Added to (and overriding) the default request headers. */
  headers?: Record<string, string>;
  body?: string;
}

export interface SafeFetchResult {
  status: number;
  contentType: string | null;
  bytes: Uint8Array;
  finalUrl: string;
  /** `enough` stopped the read before the body ended. */
  partial: boolean;
}

export class SafeFetchError extends Error {
  override name = 'SafeFetchError';
  /** Short and safe to show to the URL's owner: 'blocked address', 'timeout', 'bad status 404', … */
  constructor(
    readonly reason: string,
    /** The status the server answered with, when the failure is about its answer (bad status, a redirect). */
    readonly status?: number,
  ) {
    super(reason);
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** An empty URL port is the scheme's default (80 or 443). */
const PUBLIC_PORTS = new Set(['80', '443']);
const FIRST_PROBE_BYTES = 64 * 1024;

export async function safeFetch(url: string, options: SafeFetchOptions): Promise<SafeFetchResult> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
  try {
    let target = parseHttpUrl(url);
    for (let redirects = 0; ; redirects += 1) {
      const address = await untilAborted(vet(target, options.allowPrivate), timeout.signal);
      const hop = await get(target, address, options, timeout.signal);
      if (hop.kind === 'response') return { ...hop.response, finalUrl: target.href };
      if (redirects >= options.maxRedirects) {
        throw new SafeFetchError(options.maxRedirects === 0 ? 'redirect not followed' : 'too many redirects', hop.status);
      }
      target = parseHttpUrl(hop.location, target);
    }
  } finally {
    clearTimeout(timer);
  }
}

/** The checks every hop passes: an http(s) URL, a public address (the one to connect to), a standard port. */
async function vet(target: URL, allowPrivate: boolean): Promise<ResolvedAddress> {
  const address = await resolveAddress(hostOf(target), allowPrivate);
  if (!allowPrivate && target.port !== '' && !PUBLIC_PORTS.has(target.port)) throw new SafeFetchError('port not allowed');
  return address;
}

/**
 * For a URL stored now and fetched later (a webhook endpoint): the same checks a fetch's first hop
 * passes, run at once so the owner hears about a refused URL when they register it. A fetch
 * checks again, since what a name resolves to can change.
 */
export async function assertFetchableUrl(url: string, options: Pick<SafeFetchOptions, 'allowPrivate' | 'timeoutMs'>): Promise<void> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  await untilAborted(vet(parseHttpUrl(url), options.allowPrivate), timeout);
}

function parseHttpUrl(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new SafeFetchError(base ? 'bad redirect location' : 'invalid url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SafeFetchError('unsupported scheme');
  return url;
}

interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** The host to resolve and connect to: URL keeps IPv6 literals in brackets, sockets want them bare. */
const hostOf = (url: URL) => (url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname);

async function resolveAddress(host: string, allowPrivate: boolean): Promise<ResolvedAddress> {
  const literalFamily = ipFamily(host);
  let addresses: { address: string; family: number }[];
  if (literalFamily) {
    addresses = [{ address: host, family: literalFamily === 'ipv6' ? 6 : 4 }];
  } else {
    try {
      addresses = await dns.lookup(host, { all: true });
    } catch {
      throw new SafeFetchError('dns lookup failed');
    }
  }
  if (addresses.length === 0) throw new SafeFetchError('dns lookup failed');
  // One private answer is enough to refuse: the host's owner controls which one a connection would use.
  if (!allowPrivate && addresses.some(({ address }) => !isPublicAddress(address))) throw new SafeFetchError('blocked address');
  const [first] = addresses;
  return { address: first!.address, family: first!.family === 6 ? 6 : 4 };
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new SafeFetchError('timeout'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new SafeFetchError('timeout'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

type Hop = { kind: 'redirect'; location: string; status: number } | { kind: 'response'; response: Omit<SafeFetchResult, 'finalUrl'> };

/** Answers the connection's name lookup with the address that was already checked, and nothing else. */
const pinnedLookup =
  ({ address, family }: ResolvedAddress): LookupFunction =>
  (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };

function get(target: URL, address: ResolvedAddress, options: SafeFetchOptions, signal: AbortSignal): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: { hop: Hop } | { error: SafeFetchError }) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      request.destroy();
      if ('hop' in outcome) resolve(outcome.hop);
      else reject(outcome.error);
    };
    const fail = (error: SafeFetchError) => finish({ error });
    const onAbort = () => fail(new SafeFetchError('timeout'));

    const secure = target.protocol === 'https:';
    const request = (secure ? https : http).request(
      {
        method: options.method ?? 'GET',
        host: hostOf(target),
        port: target.port || (secure ? 443 : 80),
        path: `${target.pathname}${target.search}`,
        headers: {
          accept: 'image/png, image/jpeg;q=0.9, */*;q=0.5',
          // Node's client does not decompress; identity keeps the byte cap about real bytes.
          'accept-encoding': 'identity',
          'user-agent': 'app-marketplace-asset-check/1',
          ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }),
          ...options.headers,
        },
        agent: false,
        lookup: pinnedLookup(address),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (REDIRECT_STATUSES.has(status)) {
          const location = response.headers.location;
          if (!location) return fail(new SafeFetchError('redirect without location', status));
          return finish({ hop: { kind: 'redirect', location, status } });
        }
        if (status < 200 || status > 299) return fail(new SafeFetchError(`bad status ${status}`, status));
        readBody(response, options, {
          done: (bytes, partial) =>
            finish({ hop: { kind: 'response', response: { status, contentType: response.headers['content-type'] ?? null, bytes, partial } } }),
          fail,
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      fail(error instanceof SafeFetchError ? error : new SafeFetchError(connectionReason(error))),
    );
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    request.end(options.body);
  });
}

function readBody(
  response: IncomingMessage,
  options: SafeFetchOptions,
  outcome: { done: (bytes: Uint8Array, partial: boolean) => void; fail: (error: SafeFetchError) => void },
): void {
  const declared = Number(response.headers['content-length']);
  if (!options.enough && Number.isFinite(declared) && declared > options.maxBytes) {
    outcome.fail(new SafeFetchError('too large'));
    return;
  }

  const chunks: Buffer[] = [];
  let received = 0;
  let nextProbe = FIRST_PROBE_BYTES;
  response.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    received += chunk.length;
    const overCap = received > options.maxBytes;
    if (options.enough && (received >= nextProbe || overCap)) {
      const bytes = concat(chunks, Math.min(received, options.maxBytes));
      if (options.enough(bytes)) return outcome.done(bytes, true);
      while (nextProbe <= received) nextProbe *= 2;
    }
    if (overCap) outcome.fail(new SafeFetchError('too large'));
  });
  response.on('end', () => outcome.done(concat(chunks, received), false));
  response.on('error', () => outcome.fail(new SafeFetchError('connection reset')));
}

function concat(chunks: Buffer[], length: number): Uint8Array {
  return new Uint8Array(Buffer.concat(chunks, length));
}

function connectionReason(error: NodeJS.ErrnoException): string {
  const code = error.code ?? '';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection reset';
  if (code === 'ETIMEDOUT') return 'timeout';
  if (/TLS|CERT|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return 'tls error';
  return 'connection failed';
}
