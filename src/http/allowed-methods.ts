/**
 * The methods the route table serves at a path, so a known path asked with the wrong method is
 * answered 405 with `Allow` rather than 404. Built once from the routes on first use.
 */
interface RouteEntry {
  method: string;
  path: string;
}

const toPattern = (path: string) =>
  new RegExp(
    `^${path
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : RegExp.escape(segment)))
      .join('/')}/?$`,
  );

export function createAllowedMethods(routes: () => RouteEntry[]) {
  let table: { pattern: RegExp; method: string }[] | undefined;
  return (pathname: string): string[] => {
    table ??= routes()
      .filter((route) => /^[A-Z]+$/.test(route.method))
      .map((route) => ({ pattern: toPattern(route.path), method: route.method }));
    return [...new Set(table.filter((route) => route.pattern.test(pathname)).map((route) => route.method))].sort();
  };
}
