import Ajv, { type ErrorObject } from 'ajv';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import listingSchema from './listing.schema.json' with { type: 'json' };
import { PublishError } from './errors.ts';

/** `marketplace.json` as the CLI reads it: where to publish, and the listing itself. */
export interface Manifest {
  /** Where it was read from, for messages. */
  path: string;
  app?: string;
  teamId?: string;
  /** The listing as POST /api/dev/apps takes it, `longDescriptionFile` already read into `longDescription`. */
  listing: Record<string, unknown>;
}

/** Keys of the manifest that say where to publish rather than what. */
const PLACEMENT_KEYS = new Set(['$schema', 'app', 'teamId', 'longDescriptionFile']);

/** The listing fields the manifest can hold, from the schema the service serves (bundled, checked equal by a test). */
export const LISTING_FIELDS = Object.keys(listingSchema.properties).filter((key) => !PLACEMENT_KEYS.has(key));

const ajv = new Ajv({ allErrors: true, strict: false, verbose: true, logger: false });
ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
const validateSchema = ajv.compile(listingSchema);

/** One line per problem, naming the field as the manifest spells it. */
function describe(error: ErrorObject): string {
  const field = error.instancePath.replace(/^\//, '').replaceAll('/', '.') || '(the manifest)';
  const expected = (error.parentSchema as Record<string, unknown> | undefined)?.['x-expected'];
  switch (error.keyword) {
    case 'additionalProperties':
      return `${field}: unknown field "${(error.params as { additionalProperty: string }).additionalProperty}"`;
    case 'required':
      return `${field}: "${(error.params as { missingProperty: string }).missingProperty}" is required`;
    case 'not':
      return 'give longDescription or longDescriptionFile, not both';
    case 'enum':
      return `${field}: must be one of ${((error.params as { allowedValues: unknown[] }).allowedValues ?? []).join(', ')}`;
    default:
      return `${field}: ${typeof expected === 'string' ? `must be ${expected}` : error.message}`;
  }
}

/**
 * Reads and checks a manifest without the service: JSON, the schema (unknown fields, bounds,
 * enums), and the long-description file. Every problem is a PublishError with exit code 1.
 */
export function readManifest(file: string): Manifest {
  const path = resolve(file);
  if (!existsSync(path)) throw new PublishError(2, `${file}: no such file (pass the manifest's path, or run where marketplace.json is)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new PublishError(1, `${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (!validateSchema(parsed)) {
    // `oneOf`/`anyOf` branches repeat what their own errors say.
    const problems = [...new Set((validateSchema.errors ?? []).filter((e) => e.keyword !== 'anyOf').map(describe))];
    throw new PublishError(1, `${file} is not a valid listing manifest:\n${problems.map((line) => `  - ${line}`).join('\n')}`, { problems });
  }
  const manifest = parsed as Record<string, unknown>;
  const listing = Object.fromEntries(Object.entries(manifest).filter(([key]) => !PLACEMENT_KEYS.has(key)));
  if (typeof manifest.longDescriptionFile === 'string') {
    const descriptionPath = resolve(dirname(path), manifest.longDescriptionFile);
    if (!existsSync(descriptionPath)) {
      throw new PublishError(1, `longDescriptionFile: ${manifest.longDescriptionFile} does not exist (relative to ${file})`);
    }
    listing.longDescription = readFileSync(descriptionPath, 'utf8');
  }
  return {
    path: file,
    app: manifest.app as string | undefined,
    teamId: manifest.teamId as string | undefined,
    listing,
  };
}
