import type { Server } from 'bun';

/** A local HTTP server for fetch tests that records every path it was asked for. */
export interface ImageServer {
  origin: string;
  port: number;
  /** Paths requested so far, in order. */
  hits: string[];
  stop(): Promise<void>;
}

export type Route = (request: Request, server: ImageServer) => Response | Promise<Response>;

export function startImageServer(routes: Record<string, Route>, hostname = '127.0.0.1'): ImageServer {
  const hits: string[] = [];
  let handle: ImageServer;
  const server: Server<undefined> = Bun.serve({
    hostname,
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      hits.push(path);
      const route = routes[path];
      return route ? route(request, handle) : new Response('not found', { status: 404 });
    },
  });
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  handle = {
    origin: `http://${host}:${server.port}`,
    port: server.port!,
    hits,
    // Forcefully, so deliberately stalled responses do not hold the test up.
    stop: () => server.stop(true),
  };
  return handle;
}

export const image =
  (bytes: Uint8Array, contentType: string): Route =>
  () =>
    new Response(bytes, { headers: { 'content-type': contentType } });

/** Redirects to a path on the same server, or to any absolute URL. */
export const redirect =
  (location: string | ((server: ImageServer) => string), status = 302): Route =>
  (_request, server) =>
    new Response(null, { status, headers: { location: typeof location === 'string' ? location : location(server) } });
