/**
 * The alarm topic the service creates lets CloudWatch alarms of its own
 * account publish: its topic policy (written for the TLS-only deny) replaces
 * SNS's default policy, which would otherwise have allowed them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ALARM_PUBLISH_SID } from '../../infra/constructs/alarms.js';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import { type Synthesized, synth } from './support.js';

interface TopicStatement {
  Sid?: string;
  Effect: string;
  Principal?: Record<string, unknown>;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

let s: Synthesized;
beforeAll(() => {
  s = synth({ alarmEmail: 'oncall@example.com' });
});

function topicStatements(): TopicStatement[] {
  const topicId = logicalIdOf(s.service.alarms.topic);
  const policies = Object.values(s.template.findResources('AWS::SNS::TopicPolicy'));
  const mine = policies.filter((p) => JSON.stringify(p.Properties.Topics).includes(topicId));
  expect(mine).toHaveLength(1);
  return mine[0]!.Properties.PolicyDocument.Statement as TopicStatement[];
}

describe('Alarms', () => {
  describe('topic policy', () => {
    it('allows cloudwatch.amazonaws.com to publish, for alarms of this account only', () => {
      const allow = topicStatements().find((st) => st.Sid === ALARM_PUBLISH_SID);
      expect(allow).toMatchObject({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: { Ref: logicalIdOf(s.service.alarms.topic) },
      });
      expect(allow!.Condition!.StringEquals).toEqual({
        'aws:SourceAccount': { Ref: 'AWS::AccountId' },
      });
      expect(JSON.stringify(allow!.Condition!.ArnLike!['aws:SourceArn'])).toMatch(
        /:cloudwatch:.*AWS::AccountId.*:alarm:\*/,
      );
    });

    it('keeps the TLS-only deny beside it, and grants nothing else', () => {
      const statements = topicStatements();
      expect(statements.map((st) => st.Effect).sort()).toEqual(['Allow', 'Deny']);
      expect(statements.find((st) => st.Effect === 'Deny')!.Condition).toEqual({
        Bool: { 'aws:SecureTransport': 'false' },
      });
    });

    it('is the topic every alarm notifies', () => {
      const topicRef = { Ref: logicalIdOf(s.service.alarms.topic) };
      for (const alarm of Object.values(s.template.findResources('AWS::CloudWatch::Alarm'))) {
        expect(alarm.Properties.AlarmActions).toEqual([topicRef]);
        expect(alarm.Properties.OKActions).toEqual([topicRef]);
      }
    });
  });
});
