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
 */
export const HANDLERS = {
  putHttp: 'put-http',
  statusHttp: 'status-http',
  putSqs: 'put-sqs',
  flushTick: 'flush-tick',
  flushWorker: 'flush-worker',
  export: 'export',
  recover: 'recover',
} as const;
export type HandlerName = keyof typeof HANDLERS;
