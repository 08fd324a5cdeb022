/** Every deployed handler and its entry file in `functions/` (no CDK import: the build reads it too). */
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
