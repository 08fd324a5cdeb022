/**
 * The HTTP API's routes, as API Gateway matches them: a route key
 * (`METHOD /path/{param}`) and the decoded path parameters. Anything that
 * matches no route is API Gateway's 404; the local gateway answers it the
 * service's way (`{"error": {"kind": "not_found", ...}}`).
 */

/** Which handler serves a route. */
export const RouteTarget = { put: 'put', status: 'status' } as const;
export type RouteTarget = (typeof RouteTarget)[keyof typeof RouteTarget];

/** A route of the HTTP API. */
export interface RouteSpec {
  method: string;
  /** Path template; `{name}` matches one non-empty segment. */
  path: string;
  target: RouteTarget;
}

/** The routes, as the CDK stack declares them. */
export const ROUTES: readonly RouteSpec[] = [
  { method: 'POST', path: '/v1/shards/{shard}/rows', target: RouteTarget.put },
  { method: 'GET', path: '/v1/shards/{shard}', target: RouteTarget.status },
  { method: 'GET', path: '/v1/shards/{shard}/seqs/{seq}', target: RouteTarget.status },
];

/** A matched route. */
export interface RouteMatch {
  routeKey: string;
  target: RouteTarget;
  pathParameters: Record<string, string>;
}

/** Matches `method` and the raw (still percent-encoded) path; undefined when no route does. */
export function matchRoute(method: string, rawPath: string): RouteMatch | undefined {
  const segments = rawPath.split('/');
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const template = route.path.split('/');
    if (template.length !== segments.length) continue;
    const pathParameters: Record<string, string> = {};
    const matches = template.every((part, i) => {
      const segment = segments[i]!;
      const param = /^\{(\w+)\}$/.exec(part)?.[1];
      if (param === undefined) return part === segment;
      if (segment === '') return false;
      pathParameters[param] = decodeSegment(segment);
      return true;
    });
    if (matches)
      return { routeKey: `${route.method} ${route.path}`, target: route.target, pathParameters };
  }
  return undefined;
}

/** API Gateway passes path parameters decoded; a malformed escape is passed as sent (the handler rejects it). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
