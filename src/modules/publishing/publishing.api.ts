import { Elysia, t } from 'elysia';
import { listingManifestJsonSchema } from './listing-manifest.model.ts';

export function publishingApi() {
  // Built once: the schema is a constant of this build.
  const schema = listingManifestJsonSchema();
  return new Elysia({ tags: ['Publishing'] }).get(
    '/api/schemas/listing.json',
    ({ set }) => {
      set.headers['cache-control'] = 'public, max-age=300';
      return schema;
    },
    {
      response: { 200: t.Record(t.String(), t.Unknown(), { description: 'A JSON Schema (draft-07)' }) },
      detail: {
        summary: 'The JSON Schema of marketplace.json',
        description:
          'The listing manifest the publisher CLI reads: the fields of POST /api/dev/apps plus app, teamId and longDescriptionFile. Point `$schema` at this URL for editor completion.',
      },
    },
  );
}
