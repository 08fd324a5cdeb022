/**
 * Helpers for cdk-nag v3 acknowledgements. cdk-nag reports each wildcard
 * resource of an IAM policy as its own finding, `AwsSolutions-IAM5[Resource::
 * <resource as written in the template>]`, where a `Ref` renders `<LogicalId>`
 * and a `Fn::GetAtt` renders `<LogicalId.Attr>`. Acknowledging one finding
 * leaves every other wildcard in the same policy reported.
 */
import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** The logical id of a construct's CloudFormation resource, overrides included. */
export function logicalIdOf(construct: IConstruct): string {
  const stack = Stack.of(construct);
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return stack.resolve(element.logicalId) as string;
}

/** `<LogicalId.Arn>`, as cdk-nag prints `Fn::GetAtt [id, Arn]`. */
export function arnToken(construct: IConstruct): string {
  return `<${logicalIdOf(construct)}.Arn>`;
}

/** `<LogicalId>`, as cdk-nag prints a `Ref`. */
export function refToken(construct: IConstruct): string {
  return `<${logicalIdOf(construct)}>`;
}

/** Acknowledges IAM5 for exactly these wildcard resources on `scope`, with one reason. */
export function acknowledgeWildcardResources(
  scope: IConstruct,
  resources: readonly string[],
  reason: string,
): void {
  for (const resource of resources) {
    Validations.of(scope).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason });
  }
}
