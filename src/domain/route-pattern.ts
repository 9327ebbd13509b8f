/**
 * A route's path as a regular expression over a request path: the one matcher for the
 * app's own route table (Hono's `:name` and `*`, for 405 and Allow in app.ts) and for the
 * contract's paths (OpenAPI's `{name}`, for a bundle's stored answers in state/bundles/bundle-import.ts).
 */

const cache = new Map<string, RegExp>();

/**
 * `^path$` with `:name` a segment (`[^/]+`), `:name{re}` what `re` matches (Hono's
 * constrained parameter; `re` holds no `{` or `}`), `*` as a whole segment any rest (`.*`)
 * and `{name}` a segment captured as the group `name`; everything else literal. Cached by path.
 */
export function routePattern(path: string): RegExp {
  let re = cache.get(path);
  if (!re) {
    const source = path.replace(
      /(?<rest>(?<=^|\/)\*(?=\/|$))|:\w+\{(?<constraint>[^{}]+)\}|(?<param>:\w+)|\{(?<name>\w+)\}|[.*+?^${}()|[\]\\]/g,
      (...args) => {
        const all = args[0] as string;
        const g = args.at(-1) as Record<'rest' | 'constraint' | 'param' | 'name', string | undefined>;
        if (g.rest) return '.*';
        if (g.constraint) return `(?:${g.constraint})`;
        if (g.param) return '[^/]+';
        if (g.name) return `(?<${g.name}>[^/]+)`;
        return `\\${all}`;
      },
    );
    re = new RegExp(`^${source}$`);
    cache.set(path, re);
  }
  return re;
}
