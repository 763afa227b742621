/**
 * What a log line must never carry, wherever it hides: fields named like secrets are masked
 * whole, and secret-shaped text is masked inside any string (an error message holding a
 * database URL, a header echoed into a message). Applied to every log line (`logger.ts`).
 */
export const REDACTED = '[REDACTED]';

const SECRET_FIELD =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-csrf-token|csrf|password|passwd|secret|token|key|api[-_]?key|totp|otp)$|(secret|password|token|apikey|api_key)s?$/i;

const SECRET_TEXT: [RegExp, string][] = [
  [/\bmk_[0-9A-Za-z]{8,}/g, `mk_${REDACTED}`], // API keys
  [/\bwhsec_[0-9A-Za-z+/=_-]{8,}/g, `whsec_${REDACTED}`], // webhook signing secrets
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, `$1 ${REDACTED}`],
  [/\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g, REDACTED], // JWTs
  [/\b([a-z][a-z0-9+.-]*:\/\/)([^:@/\s"']+):([^@/\s"']+)@/gi, `$1$2:${REDACTED}@`], // URL credentials
];

export function redactText(text: string): string {
  let result = text;
  for (const [pattern, replacement] of SECRET_TEXT) result = result.replace(pattern, replacement);
  return result;
}

/** A copy of `value` with secrets masked; depth-bounded, so a cyclic or huge object cannot hang logging. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object' || depth > 6) return value;
  // Errors keep their name, message and stack for the operator, scrubbed like everything else.
  if (value instanceof Error) {
    const { name, message, stack } = value;
    return redact({ name, message, code: (value as { code?: unknown }).code, stack }, depth + 1);
  }
  if (Array.isArray(value)) return value.slice(0, 100).map((item) => redact(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([field, item]) => [field, SECRET_FIELD.test(field) && item != null ? REDACTED : redact(item, depth + 1)]),
  );
}
