/**
 * Synthesizes the real app for template tests: the feature flags from
 * cdk.json (so tests see what `cdk synth` sees), extra context per test, and
 * inline function code so no esbuild run is needed (bundle.test.ts covers
 * bundling).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Code } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import { shardwalNagPacks } from '../../infra/checks.js';
import {
  HANDLERS,
  type HandlerName,
  OPTIONAL_HANDLERS,
  type OptionalHandlerName,
  PROJECT_ROOT,
} from '../../infra/constructs/functions.js';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import type { TablesProps } from '../../infra/service-props.js';
import { createShardwalApp } from '../../infra/shardwal-app.js';
import { ShardwalService } from '../../infra/shardwal-service.js';
import type { ShardwalStack } from '../../infra/shardwal-stack.js';

/** The `context` block of cdk.json. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
}

/** Handlers deployed without their optional settings (cdk.json's context turns none on). */
export const DEFAULT_HANDLERS = (Object.keys(HANDLERS) as HandlerName[]).filter(
  (name): name is Exclude<HandlerName, OptionalHandlerName> =>
    !(OPTIONAL_HANDLERS as readonly HandlerName[]).includes(name),
);

/** The function of handler `name`; a test asking for one not deployed fails. */
export function functionOf(s: Synthesized, name: HandlerName) {
  const fn = s.service.functions.byName[name];
  if (!fn) throw new Error(`${name} is not deployed in this stack`);
  return fn;
}

/** Inline code for every function: template tests need no bundling. */
export const INLINE_CODE = Code.fromInline('export const handler = async () => ({});');

/** What a `ShardwalService` given `tables` props as written (unchecked by the compiler) throws. */
export function tablesPropsError(tables: Record<string, unknown>): Error {
  try {
    new ShardwalService(new Stack(new App(), 'Bad'), 'S', {
      tables: tables as unknown as TablesProps,
      functionCode: INLINE_CODE,
    });
  } catch (error) {
    return error as Error;
  }
  throw new Error('no error');
}

/** A synthesized stack. */
export interface Synthesized {
  stack: ShardwalStack;
  service: ShardwalService;
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
    functionCode: INLINE_CODE,
  });
  return { stack, service: stack.service, template: Template.fromStack(stack) };
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
  const role = functionOf(s, name).role;
  if (!role) throw new Error(`${name} has no role`);
  return statementsOfRole(s.template, logicalIdOf(role));
}

/** The actions of statements, flattened. */
export function actionsOf(statements: readonly Statement[]): string[] {
  return statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
}

/** The logical id of handler `name`'s function. */
export function functionId(s: Synthesized, name: HandlerName): string {
  return logicalIdOf(functionOf(s, name));
}

/** Every cdk-nag acknowledgement recorded under `root`. */
export function acknowledgements(root: IConstruct): { path: string; id: string; reason: string }[] {
  const found: { path: string; id: string; reason: string }[] = [];
  for (const c of root.node.findAll()) {
    for (const entry of c.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        found.push({ path: c.node.path, id: id.replace(/^annotation::/i, ''), reason });
      }
    }
  }
  return found;
}

/** Unacknowledged findings (errors and warnings) of shardwal's packs over an app, one line each. */
export function nagReport(app: IConstruct): string[] {
  return shardwalNagPacks(app as App).flatMap((pack) =>
    pack
      .validateScope(app)
      .violations.map(
        (v) =>
          `${v.severity} ${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
      ),
  );
}
