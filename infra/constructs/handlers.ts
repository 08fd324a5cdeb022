/**
 * Every deployed handler and its entry file in `functions/` (no CDK import:
 * the build reads it too). Adding a function is a file in `functions/` and a
 * line here; the compiler then asks for the rest, each a `Record` over
 * `HandlerName`: its size (`sizing.ts`), its table actions
 * (`TABLE_ACTIONS_BY_HANDLER` in `permissions.ts`, with any S3 or SQS grant
 * beside them) and how it is invoked (`serverless-findings.ts`). A scheduled
 * one gets a schedule with `Schedules.periodic` (`schedules.ts`: retries,
 * dead letters, async failure destination), a reserved concurrency if it
 * needs one (`concurrency.ts`); its alarms and dashboard widgets come from
 * the function list. The package build bundles it (`infra/build/bundles.ts`).
 * A function that a setting turns on is also listed in `OPTIONAL_HANDLERS`,
 * one of a part the props may leave out in `PART_HANDLERS`: a function not
 * deployed has no role, grants, schedules or alarms either.
 */
export const HANDLERS = {
  putHttp: 'put-http',
  statusHttp: 'status-http',
  putSqs: 'put-sqs',
  flushTick: 'flush-tick',
  flushWorker: 'flush-worker',
  export: 'export',
  recover: 'recover',
  /** The Iceberg table committer (`docs/tables.md`); only with the `tables` setting. */
  tableCommit: 'table-commit',
} as const;
export type HandlerName = keyof typeof HANDLERS;

/** Handlers deployed only when their setting is on: the table committer with `tables`. */
export const OPTIONAL_HANDLERS = ['tableCommit'] as const satisfies readonly HandlerName[];
export type OptionalHandlerName = (typeof OPTIONAL_HANDLERS)[number];

/**
 * Handlers of a part the props may leave out: the HTTP handlers (none with
 * `httpApi: false`) and put-sqs (none with both SQS ingest queues left out).
 */
export const PART_HANDLERS = [
  'putHttp',
  'statusHttp',
  'putSqs',
] as const satisfies readonly HandlerName[];
type PartHandlerName = (typeof PART_HANDLERS)[number];

/** A handler a service may be without. */
export type OmittableHandlerName = OptionalHandlerName | PartHandlerName;

/** Per deployed function: every handler, the optional and part ones when on. */
export type Deployed<T> = Record<Exclude<HandlerName, OmittableHandlerName>, T> &
  Partial<Record<OmittableHandlerName, T>>;
