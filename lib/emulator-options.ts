/**
 * How every AWS SDK client reaches a local emulator (dynalite, the local
 * SQS, a local S3): its endpoint, a region, and dummy credentials, which the
 * emulators accept and the SDK requires. One place, so the local stack, the
 * CLI, the benchmarks and the tests build their clients alike. No SDK import
 * here: a caller that loads the SDK lazily keeps doing so.
 */

/** The region emulator clients name when the caller names none. */
const EMULATOR_REGION = 'us-east-1';

/** Client options for the emulator at `endpoint` (in `region`, us-east-1 unless named). */
export function emulatorClientOptions(endpoint: string, region: string = EMULATOR_REGION) {
  return { endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
}
