import type { Server } from 'bun';

/** What a guard may look at: the request as it arrived, before its body is validated. */
export interface GuardContext {
  request: Request;
  headers: Record<string, string | undefined>;
  server: Pick<Server<unknown>, 'requestIP'> | null;
  set: { headers: Record<string, string | number> };
  /** The route's path template (`/api/dev/apps/:id`) and its path parameters, as yet unvalidated. */
  route: string;
  params: Record<string, string | undefined>;
}

/**
 * Turns a check (authentication, a rate limit) into macro hooks that run it before the body is
 * validated: an unauthenticated or rate-limited caller is refused as such (401, 429) whatever it
 * sent, and learns nothing about the schema. Elysia's `resolve` runs after validation, so the
 * check runs in `transform` and `resolve` only hands its result to the route.
 */
export function beforeValidation<T extends object>(check: (context: GuardContext) => Promise<T>) {
  const results = new WeakMap<Request, T>();
  return {
    async transform(context: GuardContext) {
      results.set(context.request, await check(context));
    },
    resolve({ request }: { request: Request }): T {
      const result = results.get(request);
      if (!result) throw new Error('guard result missing: the transform hook did not run');
      return result;
    },
  };
}
