/**
 * A route's path as a regular expression over a request path: the one matcher for the
 * app's own route table (Hono's `:name` and `*`, for 405 and Allow in app.ts) and for the
 * contract's paths (OpenAPI's `{name}`, for a bundle's stored answers in services/bundles.ts).
 */

const cache = new Map<string, RegExp>();

/**
 * `^path$` with `:name` a segment (`[^/]+`), `*` any rest (`.*`) and `{name}` a segment
 * captured as the group `name`; everything else literal. Cached by path.
 */
export function routePattern(path: string): RegExp {
  let re = cache.get(path);
  if (!re) {
    const source = path
      .split('/')
      .map((part) =>
        part.startsWith(':')
          ? '[^/]+'
          : part === '*'
            ? '.*'
            : part.replace(/\{(\w+)\}|[.*+?^${}()|[\]\\]/g, (all, name?: string) =>
                name ? `(?<${name}>[^/]+)` : `\\${all}`,
              ),
      )
      .join('/');
    re = new RegExp(`^${source}$`);
    cache.set(path, re);
  }
  return re;
}
