/**
 * The local stack's emulators: dynalite (DynamoDB) and fauxqs (SQS), both
 * persisted under the data folder (`lib/local/persisted-sqs.ts` keeps every
 * queue and message across kill -9), with the ingest queue and its
 * dead-letter queue created through the SQS API, as the CDK stack declares
 * them. Both listen on 127.0.0.1 only. Each loads its SDK and emulator
 * modules when it starts, so the two start side by side, and dynalite boots
 * on its own thread while this one loads them (restart time bounds the
 * crash test's stall, README "Liveness bounds"). There is no local FIFO ingest queue:
 * the local poller is not Lambda's FIFO event source, so FIFO behaviour is
 * tested in process with real FIFO event shapes (`test/sqs/`).
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { emulatorClientOptions } from '../../lib/emulator-options.js';
import { LOCAL_RESOURCES } from '../../lib/local/data-dir.js';
import { type DerivedPort, listenError } from '../../lib/local/listen-error.js';
import { LOCAL_SETTINGS } from '../../lib/local/local-settings.js';
import type { PersistedSqs } from '../../lib/local/persisted-sqs.js';
import { type DynaliteServer, startDynalite } from '../../lib/memtable/dynalite-server.js';
import { INGEST_MAX_RECEIVE_COUNT } from '../../lib/sqs/hold-back.js';

/** Seconds a received message stays invisible unless the handler sets otherwise (a crash). */
const VISIBILITY_TIMEOUT_SECONDS = 10;

/** Starts dynalite on `dynamodbDir` and ensures the table; `derived` says the port came from `PORT`. */
export async function startLocalDynamo(
  dynamodbDir: string,
  port: number,
  derived?: DerivedPort,
): Promise<DynaliteServer> {
  let server: DynaliteServer;
  const creating = import('../../lib/memtable/create-table.js');
  creating.catch(() => undefined); // awaited below
  try {
    server = await startDynalite({ path: dynamodbDir, port });
  } catch (error) {
    throw listenError(LOCAL_SETTINGS.dynamodbPort.env, port, error, derived);
  }
  try {
    const { ensureTable } = await creating;
    await ensureTable({ client: server.client, tableName: LOCAL_RESOURCES.tableName });
  } catch (error) {
    await server.close();
    throw error;
  }
  return server;
}

/** The running SQS emulator and its queues. */
export interface LocalQueues {
  endpoint: string;
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  deadLetterQueueUrl: string;
  close: () => Promise<void>;
}

/**
 * Starts the SQS emulator on the queues kept in `sqsDir`, with the ingest
 * queue and its dead-letter queue, redriving as deployed.
 */
export async function startLocalQueues(
  sqsDir: string,
  port: number,
  derived?: DerivedPort,
): Promise<LocalQueues> {
  const [{ startPersistedSqs }, { CreateQueueCommand, GetQueueAttributesCommand, SQSClient }] =
    await Promise.all([import('../../lib/local/persisted-sqs.js'), import('@aws-sdk/client-sqs')]);
  let emulator: PersistedSqs;
  try {
    emulator = await startPersistedSqs({ dir: sqsDir, port, region: LOCAL_RESOURCES.region });
  } catch (error) {
    throw listenError(LOCAL_SETTINGS.sqsPort.env, port, error, derived);
  }
  const { endpoint } = emulator;
  const client = new SQSClient(emulatorClientOptions(endpoint, LOCAL_RESOURCES.region));
  const close = async () => {
    client.destroy();
    await emulator.close();
  };
  try {
    const queueArnOf = async (queueUrl: string) => {
      const out = await client.send(
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
      );
      return out.Attributes?.QueueArn ?? '';
    };
    const dlq = await client.send(
      new CreateQueueCommand({ QueueName: LOCAL_RESOURCES.deadLetterQueueName }),
    );
    const main = await client.send(
      new CreateQueueCommand({
        QueueName: LOCAL_RESOURCES.queueName,
        Attributes: {
          VisibilityTimeout: String(VISIBILITY_TIMEOUT_SECONDS),
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: await queueArnOf(dlq.QueueUrl!),
            // The deployed redrive policy; put-sqs dead-letters permanent refusals itself.
            maxReceiveCount: INGEST_MAX_RECEIVE_COUNT,
          }),
        },
      }),
    );
    return {
      endpoint,
      client,
      queueUrl: main.QueueUrl!,
      queueArn: await queueArnOf(main.QueueUrl!),
      deadLetterQueueUrl: dlq.QueueUrl!,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
