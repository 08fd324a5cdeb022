/**
 * cdk-nag Serverless findings that do not apply to a function, each with the
 * reason, acknowledged on the function (the rule's resource is the function
 * or one of its children). What the pack asks that does apply is done in the
 * constructs: async failure destinations (`schedules.ts`), log retention,
 * API access logs and throttling, DLQs of the work queues.
 */
import { Validations } from 'aws-cdk-lib';
import type { Functions, HandlerName } from './functions.js';

/** How a function is invoked decides where its failures go. */
const INVOCATION = {
  putHttp: 'sync',
  statusHttp: 'sync',
  putSqs: 'sqs',
  flushWorker: 'sqs',
  flushTick: 'async',
  export: 'async',
  recover: 'async',
  tableCommit: 'async',
} as const satisfies Record<HandlerName, 'sync' | 'sqs' | 'async'>;

const DLQ_REASON = {
  sync: 'Invoked synchronously by API Gateway: the caller receives the error; a Lambda DLQ only ever receives failed asynchronous events.',
  sqs: 'Invoked by an SQS event source: a failed message returns to its queue and the redrive policy parks it in that queue DLQ; a Lambda DLQ would never see it.',
  async:
    'Invoked asynchronously by its schedule: failures go to the on-failure destination (the failures queue), which carries the request and the error; a DLQ would duplicate it with less.',
} as const;

const TRACING_REASON =
  'No X-Ray: each handler makes a few SDK calls whose latency Powertools metrics and structured logs record; active tracing would bill every invocation and need xray:PutTraceSegments on *.';

const ESM_DESTINATION_REASON =
  'SQS event sources take no on-failure destination (Lambda supports one only for streams and Kafka); the source queue redrive policy moves a failing message to its DLQ after 5 receives.';

/** Acknowledges, per function, the Serverless findings its invocation makes moot. */
export function acknowledgeServerlessFindings(functions: Functions): void {
  for (const [name, fn] of Object.entries(functions.byName) as [
    HandlerName,
    NonNullable<Functions['byName'][HandlerName]>,
  ][]) {
    const invocation = INVOCATION[name];
    Validations.of(fn).acknowledge(
      { id: 'Serverless-LambdaDLQ', reason: DLQ_REASON[invocation] },
      { id: 'Serverless-LambdaTracing', reason: TRACING_REASON },
    );
    if (invocation === 'sqs') {
      Validations.of(fn).acknowledge({
        id: 'Serverless-LambdaEventSourceMappingDestination',
        reason: ESM_DESTINATION_REASON,
      });
    }
  }
}
