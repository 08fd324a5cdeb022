/**
 * What the HTTP routes read of an API Gateway proxy event. Both payload
 * versions are taken: HTTP API payload 2.0 (what this stack deploys and the
 * local gateway builds) and REST API payload 1.0, whose maps may be `null`
 * (the REST console's test invocation sends `headers`, `multiValueHeaders`
 * and `queryStringParameters` as null, and `body` as null without one).
 * Samples: `events/api-put.json`, `events/api-put-rest.json`,
 * `events/api-put-rest-console-test.json`.
 */

/** The members of a proxy event (2.0 or 1.0) the routes read. */
export interface ProxyEvent {
  /** 2.0: lowercase names, repeats joined by commas; 1.0: names as sent, the last of repeats. */
  headers?: Readonly<Record<string, string | undefined>> | null;
  /** 1.0 only: every value of every header. */
  multiValueHeaders?: Readonly<Record<string, readonly string[] | undefined>> | null;
  queryStringParameters?: Readonly<Record<string, string | undefined>> | null;
  pathParameters?: Readonly<Record<string, string | undefined>> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
}
