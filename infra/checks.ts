/**
 * cdk-nag for an app that holds shardwal services. cdk-nag 3 packs are
 * policy-validation plugins, which the CDK accepts only at App or Stage
 * scope; call this once per app (or per Stage holding a service). An
 * unacknowledged error fails the synth. Every finding the service does not
 * fix is acknowledged on its own construct with the reason (`constructs/`).
 */
import { type App, type Stage, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';

/** The rule packs shardwal is held to. */
export function shardwalNagPacks(scope: App | Stage): [AwsSolutionsChecks, ServerlessChecks] {
  return [new AwsSolutionsChecks(scope), new ServerlessChecks(scope)];
}

/** Registers the AwsSolutions and Serverless packs on `scope`. */
export function addShardwalChecks(scope: App | Stage): void {
  Validations.of(scope).addPlugins(...shardwalNagPacks(scope));
}
