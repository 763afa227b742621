#!/usr/bin/env bun
/**
 * `marketplace`: publishes a listing kept as `marketplace.json` from a developer's repository or
 * CI. It talks to the service over HTTP only (types generated from its OpenAPI document), so it
 * can ship as a package of its own. Exit codes: see errors.ts and docs/publishing.md.
 */
import { parseArgs } from 'node:util';
import { createClient } from './client.ts';
import { EXIT, PublishError, type ExitCode } from './errors.ts';
import { readManifest } from './manifest.ts';
import { ciIdentityToken } from './oidc.ts';
import { findApp, publishListing, waitForDecision, type Outcome } from './publish.ts';
import { readEnv } from './settings.ts';

const USAGE = `Usage: marketplace <command> [file] [options]

Commands:
  validate [file]   check the manifest (default ./marketplace.json) without the service
  publish [file]    create or update the listing so it equals the manifest
  status [file]     show where the listing stands

Options:
  --submit          (publish) submit a draft or rejected app for review
  --wait[=minutes]  (publish) wait for the review decision (default 30 minutes)
  --oidc            trade the CI job's OIDC token for a key (trusted publishing) instead of MARKETPLACE_API_KEY
  --json            print one JSON object on stdout
  --help            this text

Environment: MARKETPLACE_URL, MARKETPLACE_API_KEY (or --oidc with GitHub Actions' id-token, or MARKETPLACE_OIDC_TOKEN).`;

const DEFAULT_WAIT_MINUTES = 30;

interface Options {
  command: 'validate' | 'publish' | 'status';
  file: string;
  submit: boolean;
  waitMinutes?: number;
  oidc: boolean;
  json: boolean;
}

function parseOptions(argv: string[]): Options | 'help' {
  // `--wait` takes an optional value, which parseArgs cannot express: bare `--wait` means the default.
  const args = argv.map((arg) => (arg === '--wait' ? `--wait=${DEFAULT_WAIT_MINUTES}` : arg));
  const parsed = (() => {
    try {
      return parseArgs({
        args,
        allowPositionals: true,
        options: {
          submit: { type: 'boolean', default: false },
          wait: { type: 'string' },
          oidc: { type: 'boolean', default: false },
          json: { type: 'boolean', default: false },
          help: { type: 'boolean', default: false },
        },
      });
    } catch (error) {
      throw new PublishError(EXIT.usage, `${(error as Error).message}\n\n${USAGE}`);
    }
  })();
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const [command, file = 'marketplace.json', ...extra] = positionals;
  if (command !== 'validate' && command !== 'publish' && command !== 'status') {
    throw new PublishError(EXIT.usage, `${command ? `Unknown command "${command}"` : 'No command given'}\n\n${USAGE}`);
  }
  if (extra.length > 0) throw new PublishError(EXIT.usage, `Unexpected arguments: ${extra.join(' ')}\n\n${USAGE}`);
  let waitMinutes: number | undefined;
  if (values.wait !== undefined) {
    waitMinutes = Number(values.wait);
    if (!/^[0-9]+(\.[0-9]+)?$/.test(values.wait) || waitMinutes <= 0 || waitMinutes > 24 * 60) {
      throw new PublishError(EXIT.usage, `--wait takes minutes between 0 and 1440 (got "${values.wait}")`);
    }
  }
  if (command !== 'publish' && (values.submit || waitMinutes !== undefined)) {
    throw new PublishError(EXIT.usage, '--submit and --wait go with publish');
  }
  return { command, file, submit: values.submit, waitMinutes, oidc: values.oidc, json: values.json };
}

/** The words a person reads for each action. */
function describe(outcome: Outcome): string[] {
  const { app } = outcome;
  const lines: string[] = [];
  const fields = outcome.changedFields.join(', ');
  switch (outcome.action) {
    case 'created':
      lines.push(`Created ${app.slug} (${app.id}) as a ${app.status}. Add "app": "${app.id}" to the manifest so later publishes find it by id.`);
      break;
    case 'updated':
      lines.push(`Updated ${app.slug}: ${fields} (version ${app.version}, ${app.status}).`);
      break;
    case 'up-to-date':
      lines.push(
        `${app.slug} is up to date (version ${app.version}, ${app.status}${app.pendingRevision ? ', a revision is waiting for review' : ''}).`,
      );
      break;
    case 'revision-opened':
    case 'revision-extended':
      lines.push(
        `${app.slug} is live, so its listing changes through review: ${outcome.action === 'revision-opened' ? 'a revision was opened' : 'the pending revision was extended'} with ${fields}. The live listing is unchanged until it is approved.`,
      );
      break;
    case 'status':
      lines.push(`${app.slug} (${app.id}): ${app.status}, version ${app.version}.`);
      if (app.review) lines.push(`Waiting for review: position ${app.review.queuePosition}, decision expected by ${app.review.expectedDecisionBy}.`);
      if (app.pendingRevision)
        lines.push(
          `A revision (version ${app.pendingRevision.version}) is waiting for review: ${Object.keys(app.pendingRevision.changes).join(', ')}.`,
        );
      if (app.status === 'REJECTED' && app.rejectionReason) lines.push(`Rejected: ${app.rejectionReason}`);
      break;
  }
  if (outcome.submitted) lines.push(`Submitted for review${app.review ? ` (position ${app.review.queuePosition} in the queue)` : ''}.`);
  for (const warning of outcome.warnings) lines.push(`warning: ${warning.path}: ${warning.message}`);
  if (outcome.decision === 'approved') lines.push('Approved: the listing is live.');
  if (outcome.decision === 'rejected') lines.push(`Rejected${outcome.reasons ? `: ${outcome.reasons}` : '.'}`);
  if (outcome.decision === 'withdrawn') lines.push('The submission was withdrawn before a decision.');
  return lines;
}

function asJson(outcome: Outcome): Record<string, unknown> {
  const { app } = outcome;
  return {
    action: outcome.action,
    id: app.id,
    slug: app.slug,
    status: app.status,
    version: app.version,
    changedFields: outcome.changedFields,
    submitted: outcome.submitted,
    pendingRevision: app.pendingRevision ? { id: app.pendingRevision.id, version: app.pendingRevision.version } : null,
    warnings: outcome.warnings,
    ...(outcome.decision ? { decision: outcome.decision, reasons: outcome.reasons ?? null } : {}),
  };
}

async function run(
  options: Options,
  environment: Record<string, string | undefined>,
): Promise<{ outcome?: Outcome; exitCode: ExitCode; valid?: true }> {
  const manifest = readManifest(options.file);
  if (options.command === 'validate') return { exitCode: EXIT.ok, valid: true };
  const env = readEnv(environment);
  let key = env.apiKey;
  const client = createClient(env.url, () => key);
  let boundAppId: string | undefined;
  if (options.oidc) {
    const exchanged = await client.exchange(await ciIdentityToken(env));
    key = exchanged.key;
    boundAppId = exchanged.appId;
  } else if (!key) {
    throw new PublishError(
      EXIT.usage,
      'Set MARKETPLACE_API_KEY to an API key with APP_READ and APP_UPDATE (and APP_CREATE to create the app), or use --oidc in CI',
    );
  }
  if (options.command === 'status') {
    const app = await findApp(client, manifest, boundAppId);
    if (!app) throw new PublishError(EXIT.invalid, `No app named "${String(manifest.listing.name)}" yet: run publish to create it`);
    return { outcome: { action: 'status', app, changedFields: [], submitted: false, warnings: [] }, exitCode: EXIT.ok };
  }
  let outcome = await publishListing(client, manifest, { submit: options.submit, boundAppId });
  if (options.waitMinutes === undefined) return { outcome, exitCode: EXIT.ok };
  outcome = { ...outcome, ...(await waitForDecision(client, outcome.app, options.waitMinutes)) };
  return { outcome, exitCode: outcome.decision === 'approved' ? EXIT.ok : EXIT.invalid };
}

export async function main(argv: string[], environment: Record<string, string | undefined>): Promise<ExitCode> {
  let options: Options | 'help' | undefined;
  try {
    options = parseOptions(argv);
    if (options === 'help') {
      console.log(USAGE);
      return EXIT.ok;
    }
    const result = await run(options, environment);
    if (options.json) {
      console.log(JSON.stringify(result.valid ? { action: 'validated', file: options.file, valid: true } : asJson(result.outcome!)));
    } else if (result.valid) {
      console.log(`${options.file} is a valid listing manifest.`);
    } else {
      for (const line of describe(result.outcome!)) console.log(line);
    }
    return result.exitCode;
  } catch (error) {
    if (!(error instanceof PublishError)) throw error;
    if (options && options !== 'help' && options.json) {
      console.log(JSON.stringify({ action: 'failed', error: error.message, exitCode: error.exitCode, ...error.details }));
    } else {
      console.error(error.message);
    }
    return error.exitCode;
  }
}

if (import.meta.main) process.exit(await main(Bun.argv.slice(2), process.env));
