/**
 * Every log line of every service the suite starts, and every secret the tests handled (keys,
 * tokens, webhook secrets, configured secrets). At the end of the run (`preload.ts`) the lines
 * are searched for each secret: a single leak anywhere in the suite fails it.
 */
const lines: string[] = [];
const secrets = new Set<string>();

export const captureLogLine = (line: string) => void lines.push(line);

/** The service's log lines about one request (its id): what a test that met a 5xx shows of why. */
export const logLinesOfRequest = (requestId: string | null) => (requestId ? lines.filter((line) => line.includes(requestId)) : []);

/** The part of a secret that must not appear, even re-prefixed or split: a key's random body, a JWT's signature. */
function core(secret: string): string {
  const prefixed = secret.match(/^(?:mk_|whsec_)(.+)$/);
  if (prefixed) return prefixed[1]!;
  const jwt = secret.split('.');
  return jwt.length === 3 && jwt[2]!.length >= 16 ? jwt[2]! : secret;
}

export function rememberSecret(secret: string | undefined | null): void {
  // Judged by what is searched for: a malformed probe such as `mk_short` has no secret part worth the name.
  const searched = secret ? core(secret) : '';
  if (searched.length >= 8) secrets.add(searched);
}

/** Secret-looking strings anywhere in a response body: minted keys, signing secrets. */
export function rememberSecretsIn(value: unknown, depth = 0): void {
  if (typeof value === 'string') {
    if (/^(mk_|whsec_)/.test(value)) rememberSecret(value);
  } else if (value && typeof value === 'object' && depth < 4) {
    for (const item of Object.values(value)) rememberSecretsIn(item, depth + 1);
  }
}

/**
 * Each secret (8 characters or more) that some line contains, with the first such line. One pass
 * over the lines, each place looked up by its first characters: searching every line for each
 * secret in turn took 5.4 s for the suite's ~23,000 lines and ~3,800 secrets (0.6 s now, D207).
 */
export function findLeaks(lines: readonly string[], secrets: Iterable<string>): { secret: string; line: string }[] {
  const byHead = new Map<string, string[]>();
  for (const secret of secrets) {
    const head = secret.slice(0, HEAD);
    byHead.set(head, [...(byHead.get(head) ?? []), secret]);
  }
  const leaks: { secret: string; line: string }[] = [];
  const found = new Set<string>();
  for (const line of lines) {
    for (let at = 0; at + HEAD <= line.length; at += 1) {
      for (const secret of byHead.get(line.slice(at, at + HEAD)) ?? []) {
        if (!found.has(secret) && line.startsWith(secret, at)) {
          found.add(secret);
          leaks.push({ secret, line });
        }
      }
    }
  }
  return leaks;
}
/** Every secret searched for is at least this long (`rememberSecret`). */
const HEAD = 8;

export const leakedSecrets = () => findLeaks(lines, secrets);

export const capturedCounts = () => ({ lines: lines.length, secrets: secrets.size });
