/**
 * Helpers for cdk-nag v3 acknowledgements. cdk-nag reports each wildcard
 * resource of an IAM policy as its own finding, `AwsSolutions-IAM5[Resource::
 * <resource>]`, where `<resource>` is the template's value flattened:
 * `Fn::Join` joined, a `Ref` as `<LogicalId>`, a `Fn::GetAtt` as
 * `<LogicalId.Attr>`, a pseudo parameter as `<AWS::Region>`. What the value
 * is depends on the stack's `env` (a concrete account or region is written
 * literally), on feature flags (partition literals) and on pinned logical
 * ids, so an acknowledgement is never written by hand: it is computed from
 * the very token the grant uses, resolved in its stack, and holds for every
 * env shape. Acknowledging one finding leaves every other wildcard in the
 * same policy reported.
 */
import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** The logical id of a construct's CloudFormation resource, overrides included. */
export function logicalIdOf(construct: IConstruct): string {
  const stack = Stack.of(construct);
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return stack.resolve(element.logicalId) as string;
}

/** A resolved CloudFormation value, flattened as cdk-nag 3 flattens it (`utils/flatten-cfn-reference`). */
function flattenCfnValue(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value.replace(/\$\{/g, '<').replace(/\}/g, '>');
  const node = value as Record<string, unknown>;
  if (node['Fn::Join']) {
    const [delimiter, items] = node['Fn::Join'] as [string, unknown[]];
    return items.map(flattenCfnValue).join(delimiter);
  }
  if (node['Fn::Sub']) return flattenCfnValue(node['Fn::Sub']);
  if (node['Fn::GetAtt']) {
    const [resource, attribute] = node['Fn::GetAtt'] as [unknown, unknown];
    return `<${flattenCfnValue(resource)}.${flattenCfnValue(attribute)}>`;
  }
  if (node['Fn::ImportValue']) return flattenCfnValue(node['Fn::ImportValue']);
  if (node.Ref) return `<${flattenCfnValue(node.Ref)}>`;
  return JSON.stringify(node);
}

/** How cdk-nag names `resource` (a token or a literal ARN) in an IAM5 finding raised in `scope`'s stack. */
function nagResourceName(scope: IConstruct, resource: string): string {
  return flattenCfnValue(Stack.of(scope).resolve(resource));
}

/**
 * Acknowledges IAM5 for exactly these wildcard resources (the tokens the
 * grant was written with) on `scope`, with one reason.
 */
export function acknowledgeWildcardResources(
  scope: IConstruct,
  resources: readonly string[],
  reason: string,
): void {
  for (const resource of resources) {
    Validations.of(scope).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagResourceName(scope, resource)}]`,
      reason,
    });
  }
}
