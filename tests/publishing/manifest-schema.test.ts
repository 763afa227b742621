import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { CreateAppBody } from '../../src/modules/apps/apps.model.ts';
import { generatedSchema, generatedTypes } from '../../src/publisher/generate.ts';
import { withReference } from '../../src/publisher/reference.ts';

const PUBLISHER = resolve(import.meta.dir, '../../src/publisher');
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
}, 30_000);
afterAll(() => t.close(), 30_000);

describe('the manifest schema', () => {
  test('is served as JSON Schema and is the create payload plus where to publish', async () => {
    const response = await t.call('GET', '/api/schemas/listing.json');
    expect(response.status).toBe(200);
    const schema = response.body;
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties).sort()).toEqual(
      [...new Set([...Object.keys(CreateAppBody.properties), '$schema', 'app', 'teamId', 'longDescriptionFile'])].sort(),
    );
    expect(schema.required).toEqual(CreateAppBody.required);
    for (const [field, property] of Object.entries(CreateAppBody.properties)) {
      expect({ field, schema: schema.properties[field] }).toEqual({ field, schema: JSON.parse(JSON.stringify(property)) });
    }
  });
});

describe('what the CLI knows of the service cannot drift', () => {
  test('its bundled schema is the one the service serves', async () => {
    const served = (await t.call('GET', '/api/schemas/listing.json')).body;
    expect(readFileSync(join(PUBLISHER, 'listing.schema.json'), 'utf8')).toBe(generatedSchema(served));
  });

  test("its API types are generated from the service's OpenAPI document (bun run publisher:generate)", async () => {
    const document = (await t.call('GET', '/swagger/json')).body;
    expect(readFileSync(join(PUBLISHER, 'api-types.ts'), 'utf8')).toBe(await generatedTypes(document));
  }, 30_000);

  test("docs/publishing.md's manifest reference is the schema's", async () => {
    const served = (await t.call('GET', '/api/schemas/listing.json')).body;
    const docs = readFileSync(resolve(PUBLISHER, '../../docs/publishing.md'), 'utf8');
    expect(docs).toBe(withReference(docs, served));
    expect(docs).toContain('| `longDescriptionFile` | no |');
  });

  test("the CLI imports none of the service's code, so it can ship as a package of its own", () => {
    for (const file of readdirSync(PUBLISHER).filter((name) => name.endsWith('.ts'))) {
      const imports = [...readFileSync(join(PUBLISHER, file), 'utf8').matchAll(/from '([^']+)'/g)].map((match) => match[1]!);
      const outside = imports.filter((path) => path.startsWith('..'));
      expect({ file, outside }).toEqual({ file, outside: [] });
    }
  });
});
