/**
 * This repository's stack: one `ShardwalService`, its props mapped from the
 * context (`context-props.ts`), with the logical ids of an existing deployment pinned and the service's values as stack outputs.
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Code } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { propsFromContext } from './context-props.js';
import { PINNED_LOGICAL_IDS } from './pinned-ids.js';
import { ShardwalService } from './shardwal-service.js';

/**
 * Id of the service inside the stack. CDK leaves a path segment named
 * `Default` out of logical ids, so every resource keeps the id it had when
 * the stack held the resources directly: upgrading a deployment updates
 * functions, API and alarms in place (the API keeps its URL) instead of
 * replacing them.
 */
const SERVICE_ID = 'Default';

/** Props of `ShardwalStack`. */
export interface ShardwalStackProps extends StackProps {
  /** Prebuilt code for every function (template tests); unset, `functions/*.ts` are bundled. */
  functionCode?: Code;
}

/** The shardwal stack of this repository's app. */
export class ShardwalStack extends Stack {
  readonly service: ShardwalService;

  constructor(scope: Construct, id: string, props: ShardwalStackProps) {
    const { functionCode, ...stackProps } = props;
    super(scope, id, stackProps);
    this.service = new ShardwalService(this, SERVICE_ID, {
      ...propsFromContext(this),
      logicalIds: PINNED_LOGICAL_IDS,
      ...(functionCode ? { functionCode } : {}),
    });
    for (const [name, value] of Object.entries(this.service.outputs())) {
      new CfnOutput(this, name, { value });
    }
  }
}
