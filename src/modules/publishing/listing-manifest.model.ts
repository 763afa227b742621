import { t, type Static } from 'elysia';
import { SingleLine } from '../../http/schemas.ts';
import { CreateAppBody } from '../apps/apps.model.ts';

/**
 * `marketplace.json`: a listing kept beside its product's code and published from CI. It is the
 * create payload itself (so the manifest cannot drift from the API) plus where to publish it.
 */
export const ListingManifest = t.Object(
  {
    $schema: t.Optional(t.String({ maxLength: 2048, description: 'This schema, for editors: https://<marketplace>/api/schemas/listing.json' })),
    app: t.Optional(
      SingleLine(1, 200, 'The id or slug of the app this manifest publishes; without it the app is found by its exact name, or created'),
    ),
    longDescriptionFile: t.Optional(SingleLine(1, 500, 'A Markdown file, relative to the manifest, read as longDescription (give one or the other)')),
    ...CreateAppBody.properties,
  },
  {
    additionalProperties: false,
    title: 'Marketplace listing manifest',
    description: 'A listing as code: the fields of POST /api/dev/apps, plus app, teamId and longDescriptionFile.',
    not: { required: ['longDescription', 'longDescriptionFile'] },
  },
);
export type ListingManifest = Static<typeof ListingManifest>;

/** The manifest's JSON Schema as served: plain JSON, draft-07, without the validator's internal marks. */
export function listingManifestJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    ...(JSON.parse(JSON.stringify(ListingManifest)) as Record<string, unknown>),
  };
}
