import type { AnyElysia } from 'elysia';
import { toOpenAPISchema } from '@elysiajs/openapi/openapi';
import { PROBLEM_TYPES, statusTitle, type ErrorCode } from '../../http/problem.ts';
import { GUARD_PROBLEMS, MEDIA_TYPES, PROBLEM_CODES } from '../../http/schemas.ts';

/**
 * The OpenAPI document at `/swagger/json`, as developers build on it. `@elysiajs/openapi` turns the
 * routes' schemas into paths; this completes what it cannot know:
 * - named schemas (registered with `.model()`, which stamps them with their `$id`) are referenced
 *   wherever they appear, never inlined;
 * - every 4xx/5xx is `application/problem+json` whose `code` is an enum of exactly the codes the
 *   operation answers with: those its route declares (`problems(…)`, next to the services it calls),
 *   its auth guard's (declared where the guard throws them), and what every operation of its kind
 *   may answer (validation; 413 and 415 with a body; 503 when it reads the database);
 * - request bodies are JSON only, each with its schema's example;
 * - Elysia's query coercion (string-or-integer) is shown as the integer the value is.
 */
type Json = Record<string, any>;

const COMPONENT_PREFIX = '#/components/schemas/';
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

export interface DocumentOptions {
  publicUrl: string;
  maxBodyBytes: number;
}

export function buildApiDocument(app: AnyElysia, options: DocumentOptions): Json {
  // `staticFile: false`: a route whose path has a dot (`/api/schemas/listing.json`) is an API too.
  const generated = toOpenAPISchema(app, { staticFile: false }, undefined, undefined, '3.1.0') as { paths: Json; components: { schemas: Json } };
  const schemas: Json = Object.fromEntries(
    Object.entries(generated.components.schemas)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, schema]) => {
        const { $id: _id, ...rest } = schema as Json;
        return [name, referenced(rest)];
      }),
  );
  const paths: Json = referenced(generated.paths);
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      if (METHODS.has(method)) completeOperation(operation, path, schemas, options);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'App Marketplace API',
      version: '1.0.0',
      description:
        'Developers register, mint scoped API keys and submit app listings for review; the public catalogue lists, searches and installs approved apps. Every error is RFC 9457 `application/problem+json` with a stable `code`; each code is explained at its `type` URI.',
      license: { name: 'Proprietary', url: `${options.publicUrl}/swagger` },
    },
    servers: [{ url: options.publicUrl, description: 'This deployment (PUBLIC_URL)' }],
    security: [],
    tags: tagsOf(paths),
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`mk_…`) or a platform OAuth access token, as each operation says',
        },
      },
    },
  };
}

/**
 * A copy of `node` in which each named schema below the top is a `$ref` to its component, and
 * Elysia's coercing numbers (`anyOf: [numeric string, number]`) are the number they decode to.
 */
function referenced(node: any, top = true): any {
  if (Array.isArray(node)) return node.map((item) => referenced(item, false));
  if (!node || typeof node !== 'object') return node;
  if (!top && typeof node.$id === 'string' && node.$id.startsWith(COMPONENT_PREFIX)) {
    // The generator folds `Union([Named, Null])` into the named schema with `type: [..., 'null']`.
    const nullable = Array.isArray(node.type) && node.type.includes('null');
    return nullable ? { anyOf: [{ $ref: node.$id }, { type: 'null' }] } : { $ref: node.$id };
  }
  const coerced = coercedNumber(node);
  if (coerced) return referenced(coerced, top);
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, referenced(value, false)]));
}

function coercedNumber(node: Json): Json | null {
  const branches = node.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2) return null;
  const text = branches.find((branch: Json) => branch?.type === 'string' && ['integer', 'numeric'].includes(branch.format));
  const number = branches.find((branch: Json) => branch?.type === 'integer' || branch?.type === 'number');
  if (!text || !number) return null;
  const { anyOf: _anyOf, ...outer } = node;
  return { ...outer, ...number };
}

function componentOf(schema: Json | undefined, schemas: Json): Json | undefined {
  const ref = schema?.$ref;
  return typeof ref === 'string' && ref.startsWith(COMPONENT_PREFIX) ? schemas[ref.slice(COMPONENT_PREFIX.length)] : schema;
}

function completeOperation(operation: Json, path: string, schemas: Json, options: DocumentOptions): void {
  const codes = new Set<ErrorCode>(operation[GUARD_PROBLEMS] ?? []);
  delete operation[GUARD_PROBLEMS];
  operation.security ??= [];
  const responses: Json = operation.responses ?? {};
  const kept: Json = {};
  for (const [status, response] of Object.entries(responses) as [string, Json][]) {
    const schema = response.content?.['application/json']?.schema;
    if (Number(status) >= 400) {
      for (const code of (schema?.[PROBLEM_CODES] as ErrorCode[] | undefined) ?? []) codes.add(code);
      if (status === '429') kept[status] = response;
      continue;
    }
    kept[status] = successResponse(response, status, schema, schemas);
  }

  if (operation.requestBody) {
    const schema = operation.requestBody.content['application/json'].schema;
    const component = componentOf(schema, schemas);
    operation.requestBody = {
      required: true,
      description: component?.description ?? 'JSON',
      content: { 'application/json': { schema, ...(component?.examples?.[0] ? { example: component.examples[0] } : {}) } },
    };
    codes.add('VALIDATION_FAILED').add('PAYLOAD_TOO_LARGE').add('UNSUPPORTED_MEDIA_TYPE');
  }
  if (operation.parameters?.length) codes.add('VALIDATION_FAILED');
  // Swagger UI fills "Try it out" from a parameter's own example.
  for (const parameter of operation.parameters ?? [])
    if (parameter.schema?.examples?.[0] !== undefined) parameter.example ??= parameter.schema.examples[0];
  // Everything under /api and /assets reads the database: a pool that stays busy, or a database that is away, is a 503.
  if (path.startsWith('/api/') || path.startsWith('/assets/')) codes.add('OVERLOADED').add('UNAVAILABLE');

  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const { status } = PROBLEM_TYPES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    kept[status] = problemResponse(status, statusCodes.sort(), kept[status], options);
  }
  operation.responses = kept;
}

function successResponse(response: Json, status: string, schema: Json | undefined, schemas: Json): Json {
  const component = componentOf(schema, schemas);
  const description = response.description?.startsWith('Response for status') ? component?.description : response.description;
  if (status === '304') return { description: description ?? 'Not modified' };
  const mediaTypes: string[] | undefined = component?.[MEDIA_TYPES];
  const content = mediaTypes
    ? Object.fromEntries(mediaTypes.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }]))
    : response.content;
  return { ...response, description: description ?? `${statusTitle(Number(status))}`, content };
}

function problemResponse(status: number, codes: ErrorCode[], declared: Json | undefined, options: DocumentOptions): Json {
  const meanings = codes.map((code) => `- \`${code}\`: ${PROBLEM_TYPES[code].meaning}`).join('\n');
  const limit = status === 413 ? ` (this deployment takes at most ${options.maxBodyBytes.toLocaleString('en')} bytes)` : '';
  const headers =
    declared?.headers ??
    (status === 503 ? { 'retry-after': { description: 'Seconds after which to try again', schema: { type: 'string' } } } : undefined);
  return {
    description: declared?.description ? `${declared.description}\n\n${meanings}` : `${statusTitle(status)}${limit}:\n\n${meanings}`,
    ...(headers ? { headers } : {}),
    content: {
      'application/problem+json': {
        example: {
          type: `${options.publicUrl}/problems/${codes[0]}`,
          title: statusTitle(status),
          status,
          detail: PROBLEM_TYPES[codes[0]!].meaning,
          code: codes[0],
          requestId: '0193a5c2-7b4e-7c8d-9e0f-1a2b3c4d5e6f',
        },
        schema: {
          allOf: [
            { $ref: `${COMPONENT_PREFIX}Problem` },
            {
              type: 'object',
              required: ['code'],
              properties: { code: { type: 'string', enum: codes }, status: { type: 'integer', const: status } },
            },
          ],
        },
      },
    },
  };
}

/** The document's tags, in the order they first appear, each described by the operations under it. */
function tagsOf(paths: Json): { name: string; description: string }[] {
  const names: string[] = [];
  for (const item of Object.values(paths) as Json[]) {
    for (const operation of Object.values(item) as Json[]) for (const tag of operation.tags ?? []) if (!names.includes(tag)) names.push(tag);
  }
  return names.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name }));
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  'Developer profile': 'Register as a developer and keep your profile (the platform OAuth token, or an API key)',
  'API keys': 'Mint, list and revoke scoped API keys',
  'Developer apps': 'Your app listings: create, edit, check, submit, withdraw, revise; reviews and replies',
  Analytics: 'Install and review figures of your apps',
  Webhooks: 'Signed notifications of what happens to your apps',
  Catalogue: 'The public catalogue: list, search, read and install approved apps',
  Reviews: "Users' reviews of apps",
  Assets: 'Mirrored listing images, exactly as reviewed',
  Health: 'Liveness and readiness probes',
  'Trusted publishing': 'CI workflows that publish an app with short-lived keys instead of a stored one',
  Publishing: 'The listing manifest (`marketplace.json`) the publisher CLI reads',
};
