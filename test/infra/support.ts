/**
 * Synthesizes the real app for template tests: the feature flags from
 * cdk.json (so tests see what `cdk synth` sees), extra context per test, and
 * inline function code so no esbuild run is needed (bundle.test.ts covers
 * bundling).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { Code } from 'aws-cdk-lib/aws-lambda';
import type { HandlerName } from '../../infra/constructs/functions.js';
import { PROJECT_ROOT } from '../../infra/constructs/functions.js';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import { createShardwalApp } from '../../infra/shardwal-app.js';
import type { ShardwalStack } from '../../infra/shardwal-stack.js';

/** The `context` block of cdk.json. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
}

/** A synthesized stack. */
export interface Synthesized {
  stack: ShardwalStack;
  template: Template;
}

/**
 * Builds the app with `context` on top of cdk.json's and synthesizes it.
 * cdk-nag runs on every synth (an unacknowledged error throws). The CDK's
 * built-in CloudFormation schema validation (a WASM module, ~6 s on first
 * use) is left to cdk-synth.test.ts, which runs it through the CLI as
 * `npm run synth` does.
 */
export function synth(context: Record<string, unknown> = {}): Synthesized {
  const { stack } = createShardwalApp({
    context: { ...cdkJsonContext(), ...context },
    builtinCloudFormationValidation: false,
    functionCode: Code.fromInline('export const handler = async () => ({});'),
  });
  return { stack, template: Template.fromStack(stack) };
}

/** An IAM policy statement as synthesized. */
export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, unknown>;
}

/** Every statement granted to `role` (inline policies and attached `AWS::IAM::Policy`s). */
export function statementsOfRole(template: Template, roleLogicalId: string): Statement[] {
  const statements: Statement[] = [];
  const role = template.toJSON().Resources[roleLogicalId];
  if (role?.Properties?.ManagedPolicyArns?.length) {
    throw new Error(`${roleLogicalId} has managed policies attached`);
  }
  for (const inline of role?.Properties?.Policies ?? [])
    statements.push(...inline.PolicyDocument.Statement);
  for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
    const roles = JSON.stringify(policy.Properties.Roles ?? []);
    if (roles.includes(`"${roleLogicalId}"`))
      statements.push(...policy.Properties.PolicyDocument.Statement);
  }
  return statements;
}

/** Statements of the role of handler `name`. */
export function statementsOf(s: Synthesized, name: HandlerName): Statement[] {
  const role = s.stack.functions.byName[name].role;
  if (!role) throw new Error(`${name} has no role`);
  return statementsOfRole(s.template, logicalIdOf(role));
}

/** The actions of statements, flattened. */
export function actionsOf(statements: readonly Statement[]): string[] {
  return statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
}

/** The logical id of handler `name`'s function. */
export function functionId(s: Synthesized, name: HandlerName): string {
  return logicalIdOf(s.stack.functions.byName[name]);
}
