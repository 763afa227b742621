import * as OTPAuth from 'otpauth';
import { renderSVG } from 'uqr';

/**
 * The TOTP second factor (RFC 6238: SHA-1, 6 digits, 30 s), as authenticator apps expect it.
 * A code is accepted for the current step and one either side (clock drift), and only once:
 * the caller stores the step a code matched and passes it back as `lastStep`.
 */
const ISSUER = 'App Marketplace';
const PERIOD_SECONDS = 30;

export const newTotpSecret = () => new OTPAuth.Secret({ size: 20 }).base32;

const totpOf = (secret: string, label = 'admin') =>
  new OTPAuth.TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: OTPAuth.Secret.fromBase32(secret) });

/** The `otpauth://` URI an authenticator app reads from the QR code. */
export const totpUri = (secret: string, email: string) => totpOf(secret, email).toString();

/** The URI as an SVG QR code (rects and paths only: no script, no style attribute). */
export const totpQrSvg = (uri: string) => renderSVG(uri, { border: 2 });

/** The time step the code matched, or null for a wrong, malformed or already used code. */
export function matchTotp(secret: string, code: string, lastStep: number | null, now = Date.now()): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totpOf(secret).validate({ token, timestamp: now, window: 1 });
  if (delta === null) return null;
  const step = Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
  return lastStep !== null && step <= lastStep ? null : step;
}

/** For tests and the enrolment page's own check: the code an app would show now. */
export const currentTotpCode = (secret: string, now = Date.now()) => totpOf(secret).generate({ timestamp: now });
