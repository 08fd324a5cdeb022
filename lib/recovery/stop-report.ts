/** Where and why a walk of the WAL chain stopped, as reports show it. */
import type { ChainStop, ErrorSummary } from './wal-chain.js';

/** Where and why a replay or fold stopped before the end of the chain. */
export interface StopReport {
  reason: 'gap' | 'corrupt' | 'discontinuity';
  position: number;
  key: string;
  /** The typed error that stopped it (its `name` says which: `UnknownFormatVersionError`, `CorruptDataError`...). */
  error: ErrorSummary | null;
  detail: string;
}

/** The report of a stop; null when the walk reached the end or its limit. */
export function stopReport(stop: ChainStop): StopReport | null {
  switch (stop.reason) {
    case 'gap':
      return {
        reason: 'gap',
        position: stop.position,
        key: stop.key,
        error: null,
        detail:
          stop.nextPresent === undefined
            ? `${stop.key} is missing`
            : `${stop.key} is missing while position ${stop.nextPresent} exists`,
      };
    case 'corrupt':
      return {
        reason: 'corrupt',
        position: stop.position,
        key: stop.key,
        error: stop.error,
        detail: `${stop.error.name}: ${stop.error.message}`,
      };
    case 'discontinuity':
      return {
        reason: 'discontinuity',
        position: stop.position,
        key: stop.key,
        error: null,
        detail: stop.detail,
      };
    default:
      return null;
  }
}
