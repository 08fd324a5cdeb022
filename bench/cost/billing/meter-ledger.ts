/**
 * The ledger a metered DynamoDB client fills: counters per (label, operation),
 * where a label names the part of shardwal that sent the request ('put',
 * 'flush', 'export', ...) and the operation is the DynamoDB API name.
 */

/** What one (label, operation) pair consumed. */
export interface MeterCounters {
  /** Billed requests sent by the caller (the meter's own side reads are not counted). */
  requests: number;
  readUnits: number;
  /** Table write units, failed conditional writes included. */
  writeUnits: number;
  /** Write units consumed in global secondary indexes. */
  indexWriteUnits: number;
  /** Writes whose condition failed (they still consumed `writeUnits`). */
  failedConditions: number;
  /** Bytes of item images written (the new image of puts and updates; 0 for deletes). */
  bytesWritten: number;
}

/** One ledger row. */
export interface LedgerRow extends MeterCounters {
  label: string;
  operation: string;
}

/** A zeroed counter set. */
export function emptyCounters(): MeterCounters {
  return {
    requests: 0,
    readUnits: 0,
    writeUnits: 0,
    indexWriteUnits: 0,
    failedConditions: 0,
    bytesWritten: 0,
  };
}

/** Adds `b` into `a`. */
export function addCounters(a: MeterCounters, b: Partial<MeterCounters>): void {
  a.requests += b.requests ?? 0;
  a.readUnits += b.readUnits ?? 0;
  a.writeUnits += b.writeUnits ?? 0;
  a.indexWriteUnits += b.indexWriteUnits ?? 0;
  a.failedConditions += b.failedConditions ?? 0;
  a.bytesWritten += b.bytesWritten ?? 0;
}

/** Accumulates counters per (label, operation). */
export class MeterLedger {
  readonly #rows = new Map<string, LedgerRow>();

  /** Adds one request's consumption. */
  record(label: string, operation: string, counters: Partial<MeterCounters>): void {
    const key = `${label}\u0000${operation}`;
    let row = this.#rows.get(key);
    if (!row) {
      row = { label, operation, ...emptyCounters() };
      this.#rows.set(key, row);
    }
    addCounters(row, counters);
  }

  /** Copies of every row, sorted by label then operation. */
  rows(): LedgerRow[] {
    return [...this.#rows.values()]
      .map((row) => ({ ...row }))
      .sort((a, b) => a.label.localeCompare(b.label) || a.operation.localeCompare(b.operation));
  }

  /** Sum of the rows matching `filter` (all rows when empty). */
  totals(filter: { label?: string; operation?: string } = {}): MeterCounters {
    const total = emptyCounters();
    for (const row of this.#rows.values()) {
      if (filter.label !== undefined && row.label !== filter.label) continue;
      if (filter.operation !== undefined && row.operation !== filter.operation) continue;
      addCounters(total, row);
    }
    return total;
  }

  /** Forgets every row. */
  reset(): void {
    this.#rows.clear();
  }
}
