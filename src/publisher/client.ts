import type { paths } from './api-types.ts';
import { EXIT, PublishError } from './errors.ts';

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
export type OwnerApp = Json<paths['/api/dev/apps/{id}']['get']['responses'][200]>;
export type AppPage = Json<paths['/api/dev/apps']['get']['responses'][200]>;
export type RevisionList = Json<paths['/api/dev/apps/{id}/revisions']['get']['responses'][200]>;
export type ExchangedKey = Json<paths['/api/dev/trusted-publishing/exchange']['post']['responses'][201]>;

/** What the service says when it refuses: RFC 9457 problem+json. */
interface Problem {
  status: number;
  code?: string;
  detail?: string;
  errors?: { path: string; message: string }[];
}

/** Turns a refusal into a message that says what to do, and the exit code the docs promise. */
function refusal(method: string, path: string, problem: Problem, retryAfter: string | null): PublishError {
  const fields = (problem.errors ?? []).map((error) => `  - ${error.path.replace(/^\//, '').replaceAll('/', '.')}: ${error.message}`);
  const text = [`${problem.code ?? problem.status}: ${problem.detail ?? 'refused'}`, ...fields].join('\n');
  const details = { status: problem.status, code: problem.code, problems: problem.errors ?? [] };
  if (problem.status === 401)
    return new PublishError(EXIT.usage, `${text}\nThe key was refused: check MARKETPLACE_API_KEY (or the OIDC token).`, details);
  if (problem.status === 403)
    return new PublishError(
      EXIT.usage,
      `${text}\nThe key may not do this (${method} ${path}): it needs the right scope, and a verified account.`,
      details,
    );
  if (problem.status === 429)
    return new PublishError(EXIT.unavailable, `${text}\nTry again${retryAfter ? ` in ${retryAfter} s` : ' later'}.`, details);
  if (problem.status >= 500)
    return new PublishError(EXIT.unavailable, `The service failed (${problem.status}): ${problem.detail ?? 'no detail'}`, details);
  return new PublishError(EXIT.invalid, text, details);
}

/** The service over HTTP, and nothing else: every call is one request with the key as bearer. */
export function createClient(baseUrl: string, key: () => string | undefined) {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = key();
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      throw new PublishError(EXIT.unavailable, `Could not reach ${baseUrl}: ${(error as Error).message}`);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      throw new PublishError(EXIT.unavailable, `${method} ${path} answered ${response.status} with a body that is not JSON`);
    }
    if (!response.ok) {
      const problem = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Problem;
      throw refusal(method, path, { ...problem, status: response.status }, response.headers.get('retry-after'));
    }
    return parsed as T;
  }

  return {
    getApp: (id: string) => call<OwnerApp>('GET', `/api/dev/apps/${encodeURIComponent(id)}`),
    listApps: (page: number) => call<AppPage>('GET', `/api/dev/apps?page=${page}&limit=100`),
    createApp: (listing: Record<string, unknown>) => call<OwnerApp>('POST', '/api/dev/apps', listing),
    updateApp: (id: string, changes: Record<string, unknown>) => call<OwnerApp>('PUT', `/api/dev/apps/${id}`, changes),
    openRevision: (id: string, changes: Record<string, unknown>) => call<OwnerApp>('POST', `/api/dev/apps/${id}/revisions`, changes),
    listRevisions: (id: string) => call<RevisionList>('GET', `/api/dev/apps/${id}/revisions`),
    submit: (id: string) => call<OwnerApp>('POST', `/api/dev/apps/${id}/submit`),
    exchange: (token: string) => call<ExchangedKey>('POST', '/api/dev/trusted-publishing/exchange', { token }),
  };
}

export type Client = ReturnType<typeof createClient>;
