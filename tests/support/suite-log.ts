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

export function leakedSecrets(): { secret: string; line: string }[] {
  const leaks: { secret: string; line: string }[] = [];
  for (const secret of secrets) {
    const line = lines.find((candidate) => candidate.includes(secret));
    if (line) leaks.push({ secret, line });
  }
  return leaks;
}

export const capturedCounts = () => ({ lines: lines.length, secrets: secrets.size });
