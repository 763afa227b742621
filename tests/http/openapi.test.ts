import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { approvedApp, completeApp, createApp, minimalApp } from '../apps/fixtures.ts';
import { teamOfThree } from '../teams/team-fixtures.ts';
import { PROBLEM_TYPES, statusTitle, type ErrorCode } from '../../src/http/problem.ts';

let t: TestApp;
beforeAll(async () => {
  // Rate limits on (the default), so the document states them.
  t = await createTestApp({ RATE_LIMITS: 'developer=600' });
}, 30_000);
afterAll(() => t.close(), 30_000);

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');

test('every route is in /swagger/json with a summary, its request schemas and its response schemas', async () => {
  const document = (await t.call('GET', '/swagger/json')).body;
  const routes = t.app.routes.filter((route) => route.path.startsWith('/api/') || route.path === '/livez' || route.path === '/readyz');
  expect(routes.length).toBeGreaterThanOrEqual(20);
  for (const route of routes) {
    const operation = document.paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()];
    expect(operation, `${route.method} ${route.path} is documented`).toBeDefined();
    expect(operation.summary, `${route.method} ${route.path} has a summary`).toBeString();
    const successes = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
    expect(successes.length, `${route.method} ${route.path} documents its success`).toBeGreaterThan(0);
    for (const status of Object.keys(operation.responses)) {
      const content = operation.responses[status].content;
      expect(content, `${route.method} ${route.path} ${status} has a schema`).toBeDefined();
    }
    if (
      ['POST', 'PUT'].includes(route.method) &&
      !/\/(submit|preflight|withdraw|rotate-secret|test|redeliver|accept|decline|verify)$/.test(route.path)
    ) {
      expect(operation.requestBody, `${route.method} ${route.path} documents its body`).toBeDefined();
    }
    // Registration takes the platform token; the trusted-publishing exchange takes none (the CI job's token is its body).
    if (route.path.startsWith('/api/dev/') && !['/api/dev/register', '/api/dev/trusted-publishing/exchange'].includes(route.path)) {
      expect(operation.security, `${route.method} ${route.path} declares bearer auth`).toEqual([{ bearer: [] }]);
    }
    // Every route behind a credential or a public limit can be refused with 429: it says so, with the limits and headers.
    // Not limited (issue 19): the trusted-publishing exchange (reported) and the static manifest schema.
    if (route.path.startsWith('/api/') && !['/api/dev/trusted-publishing/exchange', '/api/schemas/listing.json'].includes(route.path)) {
      const limited = operation.responses['429'];
      expect(limited, `${route.method} ${route.path} documents 429`).toBeDefined();
      expect(Object.keys(limited.headers ?? {}).sort(), `${route.method} ${route.path} 429 headers`).toEqual([
        'ratelimit-limit',
        'ratelimit-remaining',
        'ratelimit-reset',
        'retry-after',
      ]);
      expect(limited.description).toMatch(/a minute/);
    }
  }
  const limitOf = (path: string, method: string) => document.paths[path][method].responses['429'].description as string;
  expect(limitOf('/api/dev/api-keys', 'post')).toContain('10 key creations per developer a minute');
  expect(limitOf('/api/dev/apps/{id}/submit', 'post')).toContain('10 submissions per developer a minute');
  expect(limitOf('/api/dev/apps/{id}/revisions', 'post')).toContain('10 revisions per developer a minute');
  expect(limitOf('/api/apps/{slug}/install', 'post')).toContain('300 installs and reviews per client address');
});

describe('the document developers build on (issue 15)', () => {
  let doc: any;
  let pub: TestApp;
  beforeAll(async () => {
    pub = await createTestApp({ PUBLIC_URL: 'https://marketplace.example.com/', RATE_LIMITS: 'developer=600' });
    doc = (await pub.call('GET', '/swagger/json')).body;
  }, 30_000);
  afterAll(() => pub.close(), 30_000);

  const operations = () =>
    Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.entries<any>(item).map(([method, operation]) => ({ path, method, operation })));
  const walk = (node: any, visit: (node: any) => void): void => {
    if (!node || typeof node !== 'object') return;
    visit(node);
    for (const value of Object.values(node)) walk(value, visit);
  };

  test('servers is PUBLIC_URL; the named schemas are components, referenced and never inlined', () => {
    expect(doc.servers).toEqual([{ url: 'https://marketplace.example.com', description: expect.any(String) }]);
    for (const name of ['App', 'AppSummary', 'OwnerApp', 'Problem', 'ApiKey', 'CreateApp', 'UpdateApp', 'Webhook', 'Review', 'Developer']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    const schemaOf = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema;
    expect(schemaOf('/api/apps/{slug}', 'get', '200')).toEqual({ $ref: '#/components/schemas/App' });
    expect(schemaOf('/api/apps', 'get', '200').properties.data.items).toEqual({ $ref: '#/components/schemas/AppSummary' });
    expect(schemaOf('/api/dev/api-keys', 'get', '200').properties.data.items).toEqual({ $ref: '#/components/schemas/ApiKey' });
    expect(doc.paths['/api/dev/apps'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateApp' });
    walk(doc, (node) => expect(node.$id, 'no inlined copy of a named schema').toBeUndefined());
  });

  test('integers are integers: no string-or-integer anywhere', () => {
    walk(doc, (node) => {
      expect(node.format === 'integer' || node.format === 'numeric', JSON.stringify(node)).toBe(false);
    });
    expect(doc.components.schemas.App.properties.installCount).toEqual({ type: 'integer', description: 'Distinct installers ever' });
    expect(doc.components.schemas.Problem.properties.status.type).toBe('integer');
    expect(doc.components.schemas.CreateApiKey.properties.expiresInDays.type).toBe('integer');
    const page = doc.paths['/api/apps'].get.parameters.find((parameter: any) => parameter.name === 'page');
    expect(page.schema.type).toBe('integer');
  });

  test('every success is described in words; every 4xx/5xx is problem+json with the enum of its codes', () => {
    for (const { path, method, operation } of operations()) {
      const label = `${method.toUpperCase()} ${path}`;
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        expect(response.description, `${label} ${status}`).not.toMatch(/^Response for status/);
        if (Number(status) < 400) {
          // Nor the generic title a success falls back to when its schema says nothing.
          expect(response.description, `${label} ${status}`).not.toBe(statusTitle(Number(status)));
          continue;
        }
        expect(Object.keys(response.content), `${label} ${status}`).toEqual(['application/problem+json']);
        const [problem, narrowed] = response.content['application/problem+json'].schema.allOf;
        expect(problem).toEqual({ $ref: '#/components/schemas/Problem' });
        expect(narrowed.properties.code.enum.length, `${label} ${status}`).toBeGreaterThan(0);
        for (const code of narrowed.properties.code.enum) expect(PROBLEM_TYPES[code as ErrorCode].status, `${label} ${code}`).toBe(Number(status));
      }
      if (operation.requestBody) {
        expect(Object.keys(operation.requestBody.content), label).toEqual(['application/json']);
        expect(operation.requestBody.content['application/json'].example, `${label} has an example`).toBeDefined();
        for (const status of ['400', '413', '415']) expect(operation.responses[status], `${label} ${status}`).toBeDefined();
      }
      if (path.startsWith('/api/')) expect(codesOf(doc, method, path, 503)).toEqual(['OVERLOADED', 'UNAVAILABLE']);
    }
    expect(codesOf(doc, 'put', '/api/dev/apps/{id}', 409)).toEqual(['APP_NOT_EDITABLE']);
    expect(codesOf(doc, 'put', '/api/dev/apps/{id}', 400)).toEqual(['SUBMISSION_INCOMPLETE', 'UNKNOWN_OAUTH_CLIENT', 'VALIDATION_FAILED']);
    expect(codesOf(doc, 'put', '/api/dev/apps/{id}', 403)).toEqual([
      'API_KEY_REQUIRED',
      'DEVELOPER_SUSPENDED',
      'INSUFFICIENT_SCOPE',
      'TEAM_ROLE_REQUIRED',
      'TEAM_SUSPENDED',
    ]);
    expect(codesOf(doc, 'post', '/api/dev/apps/{id}/withdraw', 409)).toEqual(['INVALID_STATE_TRANSITION']);
    expect(codesOf(doc, 'delete', '/api/dev/apps/{id}/revision', 404)).toEqual(['NOT_FOUND']);
    expect(codesOf(doc, 'get', '/api/apps/{slug}', 410)).toEqual(['APP_UNAVAILABLE']);
  });

  test('no field of an answer is drawn from its pattern: each patterned string a success can hold has a written example', () => {
    // Swagger UI fills a response's example value from each field's own example, else generates one from its pattern (unreadable).
    const unreadable = new Set<string>();
    const visit = (node: any, at: string, seen: Set<string>): void => {
      if (!node || typeof node !== 'object') return;
      if (typeof node.$ref === 'string') {
        const name = node.$ref.split('/').pop();
        if (!seen.has(name)) visit(doc.components.schemas[name], name, new Set([...seen, name]));
        return;
      }
      if (typeof node.pattern === 'string' && node.examples === undefined && node.example === undefined) unreadable.add(at);
      for (const [key, value] of Object.entries(node)) visit(value, `${at}.${key}`, seen);
    };
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (Number(status) >= 400) continue;
        for (const media of Object.values<any>(response.content ?? {})) visit(media.schema, `${method.toUpperCase()} ${path} ${status}`, new Set());
      }
    }
    expect([...unreadable].sort()).toEqual([]);
  });

  test('each problem type URI is PUBLIC_URL/problems/<code>, a page saying what the code means and what to do', async () => {
    const refused = await pub.call('GET', '/api/apps/no-such-app');
    expect(refused.body.type).toBe('https://marketplace.example.com/problems/NOT_FOUND');
    for (const code of Object.keys(PROBLEM_TYPES) as ErrorCode[]) {
      const page = await pub.call('GET', `/problems/${code}`);
      expect(page.status, code).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.body).toContain(`<h1><code>${code}</code></h1>`);
      expect(page.body).toContain('What to do');
    }
    expect((await pub.call('GET', '/problems/NO_SUCH_CODE')).status).toBe(404);
  });
});

/** The codes an operation documents for a status (sorted). */
function codesOf(document: any, method: string, path: string, status: number): string[] {
  return document.paths[path][method].responses[status]?.content['application/problem+json'].schema.allOf[1].properties.code.enum ?? [];
}

describe('the documented codes are the codes the service answers with', () => {
  test('each refusal carries a code its operation documents for that status', async () => {
    const local = await createTestApp({ MAX_BODY_BYTES: '4096' });
    try {
      const doc = (await local.call('GET', '/swagger/json')).body;
      const dev = await registerDeveloper(local);
      const key = await mintKey(local, dev);
      const readOnly = await mintKey(local, dev, ['APP_READ']);
      const unverified = await registerDeveloper(local, { verified: false });
      const approved = await approvedApp(local, key);
      const draft = await createApp(local, key, minimalApp());
      const seen: string[] = [];
      const big = JSON.stringify({ longDescription: 'x'.repeat(5000) });
      const expectDocumented = async (method: string, template: string, path: string, options: Parameters<TestApp['call']>[2], code: string) => {
        const response = await local.call(method, path, options);
        expect(response.body.code, `${method} ${path}`).toBe(code);
        expect(codesOf(doc, method.toLowerCase(), template, response.status), `${method} ${template} documents ${code}`).toContain(code);
        seen.push(code);
      };
      await expectDocumented('PUT', '/api/dev/apps/{id}', `/api/dev/apps/${approved.id}`, { token: key, body: { name: 'X' } }, 'APP_NOT_EDITABLE');
      await expectDocumented('PUT', '/api/dev/apps/{id}', `/api/dev/apps/${draft.id}`, { token: key, body: { name: 7 } }, 'VALIDATION_FAILED');
      await expectDocumented(
        'PUT',
        '/api/dev/apps/{id}',
        `/api/dev/apps/${draft.id}`,
        { token: readOnly, body: { name: 'X' } },
        'INSUFFICIENT_SCOPE',
      );
      await expectDocumented(
        'PUT',
        '/api/dev/apps/{id}',
        `/api/dev/apps/${draft.id}`,
        { token: dev.oauthToken, body: { name: 'X' } },
        'API_KEY_REQUIRED',
      );
      await expectDocumented('PUT', '/api/dev/apps/{id}', `/api/dev/apps/${draft.id}`, { body: { name: 'X' } }, 'UNAUTHENTICATED');
      await expectDocumented(
        'PUT',
        '/api/dev/apps/{id}',
        `/api/dev/apps/${draft.id}`,
        { token: key, rawBody: 'name=X', headers: { 'content-type': 'text/plain' } },
        'UNSUPPORTED_MEDIA_TYPE',
      );
      await expectDocumented(
        'PUT',
        '/api/dev/apps/{id}',
        `/api/dev/apps/${draft.id}`,
        { token: key, rawBody: big, headers: { 'content-length': String(big.length) } },
        'PAYLOAD_TOO_LARGE',
      );
      await expectDocumented('POST', '/api/dev/apps/{id}/submit', `/api/dev/apps/${draft.id}/submit`, { token: key }, 'SUBMISSION_INCOMPLETE');
      await expectDocumented('POST', '/api/dev/apps/{id}/submit', `/api/dev/apps/${approved.id}/submit`, { token: key }, 'INVALID_STATE_TRANSITION');
      await expectDocumented('POST', '/api/dev/apps/{id}/withdraw', `/api/dev/apps/${draft.id}/withdraw`, { token: key }, 'INVALID_STATE_TRANSITION');
      await expectDocumented('DELETE', '/api/dev/apps/{id}/revision', `/api/dev/apps/${approved.id}/revision`, { token: key }, 'NOT_FOUND');
      await expectDocumented('DELETE', '/api/dev/apps/{id}', `/api/dev/apps/${approved.id}`, { token: key }, 'APP_NOT_EDITABLE');
      await expectDocumented('GET', '/api/apps/{slug}', '/api/apps/no-such-app', {}, 'NOT_FOUND');
      await expectDocumented(
        'POST',
        '/api/dev/register',
        '/api/dev/register',
        { token: dev.oauthToken, body: { name: 'Again', email: dev.email, platformUserId: dev.platformUserId } },
        'DEVELOPER_EXISTS',
      );
      await expectDocumented(
        'POST',
        '/api/dev/api-keys',
        '/api/dev/api-keys',
        { token: unverified.oauthToken, body: { name: 'k', scopes: ['APP_READ'] } },
        'DEVELOPER_NOT_VERIFIED',
      );
      await expectDocumented(
        'POST',
        '/api/apps/{slug}/reviews',
        `/api/apps/${approved.slug}/reviews`,
        { token: await local.token('never-installed'), body: { rating: 4 } },
        'INSTALL_REQUIRED',
      );
      await expectDocumented(
        'POST',
        '/api/dev/webhooks',
        '/api/dev/webhooks',
        { token: key, body: { url: 'http://127.0.0.1:9/hook', events: ['app.approved'] } },
        'VALIDATION_FAILED',
      );
      expect(seen.length).toBe(17);
    } finally {
      await local.close();
    }
  }, 60_000);
});

describe('generic refusals of every operation are documented', () => {
  test('no credential, a bad one, a bad path parameter, a non-JSON, malformed or oversized body: each code is in the enum of its operation and status', async () => {
    const local = await createTestApp({ MAX_BODY_BYTES: '4096', RATE_LIMITS: 'developer=600' });
    try {
      const doc = (await local.call('GET', '/swagger/json')).body;
      const key = await mintKey(local, await registerDeveloper(local));
      let checked = 0;
      for (const [template, item] of Object.entries<any>(doc.paths)) {
        for (const [method, operation] of Object.entries<any>(item)) {
          const label = `${method.toUpperCase()} ${template}`;
          const concrete = (value: string) => template.replace(/\{[^}]+\}/g, value);
          const attempts: Parameters<TestApp['call']>[2][] = [];
          const needsCredential =
            (operation.security ?? []).length > 0 && !operation.security.some((requirement: object) => Object.keys(requirement).length === 0);
          if (needsCredential) attempts.push({}, { token: 'not-a-token' });
          if (operation.requestBody) {
            const big = JSON.stringify({ padding: 'x'.repeat(5000) });
            attempts.push(
              { token: key, rawBody: 'name=x', headers: { 'content-type': 'text/plain' } },
              { token: key, rawBody: '{"unterminated' },
              { token: key, rawBody: big, headers: { 'content-length': String(big.length) } },
            );
          }
          const paths = [concrete('00000000-0000-4000-8000-000000000000')];
          if (operation.parameters?.some((parameter: any) => parameter.in === 'path' && parameter.schema.pattern)) paths.push(concrete('not-a-uuid'));
          for (const path of paths) {
            for (const options of [...attempts, { token: key }]) {
              const response = await local.call(method.toUpperCase(), path, options);
              if (response.status < 400) continue;
              expect(
                codesOf(doc, method, template, response.status),
                `${label} (${path}) answered ${response.status} ${response.body.code}`,
              ).toContain(response.body.code);
              checked += 1;
            }
          }
        }
      }
      expect(checked).toBeGreaterThan(100);
    } finally {
      await local.close();
    }
  }, 120_000);
});

describe('refusals of team members are documented', () => {
  test('a role too weak, a suspended team, a suspended or unverified developer: on every developer operation each code is in the enum of its operation and status', async () => {
    const local = await createTestApp({ RATE_LIMITS: 'developer=600', ALLOW_PRIVATE_FETCH: 'true' });
    try {
      const doc = (await local.call('GET', '/swagger/json')).body;
      const { team, owner, analyst } = await teamOfThree(local);
      const app = await createApp(local, owner.key, { ...completeApp(), teamId: team.id });
      const hook = await local.call('POST', '/api/dev/webhooks', {
        token: owner.key,
        body: { url: 'http://127.0.0.1:9/hook', events: ['app.approved'], teamId: team.id },
      });
      expect(hook.status).toBe(201);
      const undocumented = new Set<string>();
      let refused = 0;
      // Every developer operation on the team's app, the team or its webhook, with `teamId` wherever the operation takes one.
      const sweep = async (token: string) => {
        for (const [template, item] of Object.entries<any>(doc.paths)) {
          if (!template.startsWith('/api/dev/') || ['/api/dev/register', '/api/dev/trusted-publishing/exchange'].includes(template)) continue;
          for (const [method, operation] of Object.entries<any>(item)) {
            const id = template.startsWith('/api/dev/teams/') ? team.id : template.startsWith('/api/dev/webhooks/') ? hook.body.id : app.id;
            let path = template.replace('{id}', id).replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
            if (operation.parameters?.some((parameter: any) => parameter.name === 'teamId')) path += `?teamId=${team.id}`;
            const media = operation.requestBody?.content['application/json'];
            const takesTeam = doc.components.schemas[media?.schema.$ref?.split('/').pop()]?.properties.teamId;
            const body = media && (takesTeam ? { ...media.example, teamId: team.id } : media.example);
            const response = await local.call(method.toUpperCase(), path, { token, body });
            if (response.status < 400) continue;
            refused += 1;
            if (!codesOf(doc, method, template, response.status).includes(response.body.code)) {
              undocumented.add(`${method.toUpperCase()} ${template}: ${response.status} ${response.body.code}`);
            }
          }
        }
      };
      await sweep(analyst.key);
      await sweep(analyst.oauthToken);
      await local.sql('update teams set suspended_at = now() where id = ?', [team.id]);
      await sweep(owner.key);
      await sweep(owner.oauthToken);
      await local.sql('update teams set suspended_at = null where id = ?', [team.id]);
      await local.sql(`update developers set status = 'SUSPENDED' where id = ?`, [analyst.id]);
      await sweep(analyst.oauthToken);
      await sweep((await registerDeveloper(local, { verified: false })).oauthToken);
      expect([...undocumented].sort()).toEqual([]);
      expect(refused).toBeGreaterThan(100);
    } finally {
      await local.close();
    }
  }, 120_000);
});
