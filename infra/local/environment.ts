/**
 * The environment the local stack gives its handlers: what the CDK stack
 * sets on the deployed functions, pointed at the local emulators. It is
 * applied to `process.env` before any handler module loads, because every
 * entry point builds its service (and the logger reads its level) at module
 * scope, as on a Lambda cold start.
 */
import { RESOURCE_ENV, SETTINGS } from '../../lib/config.js';
import { type DataDirLayout, LOCAL_RESOURCES } from '../../lib/local/data-dir.js';
import type { LocalSettings } from '../../lib/local/local-settings.js';
import { ENDPOINT_ENV } from '../../lib/runtime/clients.js';

/** The emulator's ingest queue, as put-sqs needs it. */
export interface LocalIngestQueues {
  endpoint: string;
  queueUrl: string;
  deadLetterQueueUrl: string;
}

/** The variables to set (a value) or remove (undefined). */
export function localEnvironment(
  env: NodeJS.ProcessEnv,
  settings: LocalSettings,
  layout: DataDirLayout,
  dynamodbEndpoint: string,
  queues?: LocalIngestQueues,
): Record<string, string | undefined> {
  return {
    [RESOURCE_ENV.tableName]: LOCAL_RESOURCES.tableName,
    [RESOURCE_ENV.bucketName]: LOCAL_RESOURCES.bucketName,
    // No flush queue: size triggers go through the local ticker (`setLocalFlushRequester`).
    [RESOURCE_ENV.flushQueueUrl]: undefined,
    // put-sqs dead-letters and holds back on the emulator's ingest queue, as deployed.
    [ENDPOINT_ENV.sqs]: queues?.endpoint,
    [RESOURCE_ENV.ingestQueueUrl]: queues?.queueUrl,
    [RESOURCE_ENV.ingestDlqUrl]: queues?.deadLetterQueueUrl,
    [RESOURCE_ENV.ingestFifoQueueUrl]: undefined,
    [RESOURCE_ENV.ingestFifoDlqUrl]: undefined,
    [ENDPOINT_ENV.storeDir]: layout.objectsDir,
    [ENDPOINT_ENV.dynamodb]: dynamodbEndpoint,
    [SETTINGS.flushIntervalMs.env]: String(settings.flushIntervalMs),
    AWS_REGION: env.AWS_REGION ?? LOCAL_RESOURCES.region,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    POWERTOOLS_METRICS_DISABLED: env.POWERTOOLS_METRICS_DISABLED ?? 'true',
    // SHARDWAL_LOG_LEVEL wins when set; else an explicit POWERTOOLS_LOG_LEVEL stays.
    POWERTOOLS_LOG_LEVEL:
      env.SHARDWAL_LOG_LEVEL !== undefined && env.SHARDWAL_LOG_LEVEL !== ''
        ? settings.logLevel
        : (env.POWERTOOLS_LOG_LEVEL ?? settings.logLevel),
  };
}

/** Applies `vars` to `env`; returns a function that puts the previous values back. */
export function applyEnvironment(
  env: NodeJS.ProcessEnv,
  vars: Record<string, string | undefined>,
): () => void {
  const previous = Object.keys(vars).map((name) => [name, env[name]] as const);
  const assign = (entries: Iterable<readonly [string, string | undefined]>) => {
    for (const [name, value] of entries) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
  };
  assign(Object.entries(vars));
  return () => assign(previous);
}
