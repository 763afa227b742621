/** Exit codes of the publisher CLI, as docs/publishing.md lists them. */
export const EXIT = {
  /** Done, or approved when waiting. */
  ok: 0,
  /** The manifest is invalid, the service refused it, or the listing was rejected. */
  invalid: 1,
  /** Usage or configuration: arguments, MARKETPLACE_URL, the key or the OIDC token. */
  usage: 2,
  /** `--wait` ran out of time before a decision. */
  timeout: 3,
  /** The service failed or could not be reached. */
  unavailable: 4,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the CLI reports as one message and an exit code; `details` go into `--json` output. */
export class PublishError extends Error {
  override name = 'PublishError';
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}
