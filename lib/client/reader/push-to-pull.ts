/**
 * Turns a reader that pushes items into a callback (the segment reader
 * hands rows to `onRow`, and waits when it returns a promise) into an async
 * iterator of batches the consumer pulls from (what was queued since its
 * last pull), with bounded memory: the producer waits once `highWater`
 * items are queued. When the consumer stops early, the producer's next
 * `emit` throws, so its read ends and releases its stream.
 */

/** Thrown into the producer when the consumer is gone; swallowed here. */
const STOPPED = Symbol('consumer stopped');

/** Queued items before the producer waits. */
const HIGH_WATER = 1024;

/** The items `run` emits, in order, in non-empty batches; `run`'s own error ends the iteration with that error. */
export async function* pushToPull<T>(
  run: (emit: (item: T) => Promise<void> | undefined) => Promise<void>,
  highWater: number = HIGH_WATER,
): AsyncGenerator<T[], void, undefined> {
  let queue: T[] = [];
  let finished = false;
  let failure: { error: unknown } | undefined;
  let stopped = false;
  let wakeConsumer: (() => void) | undefined;
  let wakeProducer: (() => void) | undefined;

  const emit = (item: T): Promise<void> | undefined => {
    if (stopped) throw STOPPED;
    queue.push(item);
    wakeConsumer?.();
    if (queue.length < highWater) return undefined;
    return new Promise<void>((resolve) => {
      wakeProducer = resolve;
    }).then(() => {
      if (stopped) throw STOPPED;
    });
  };
  const running = run(emit).then(
    () => {
      finished = true;
      wakeConsumer?.();
    },
    (error: unknown) => {
      if (error !== STOPPED) failure = { error };
      finished = true;
      wakeConsumer?.();
    },
  );
  try {
    for (;;) {
      if (queue.length > 0) {
        const batch = queue;
        queue = [];
        const wake = wakeProducer;
        wakeProducer = undefined;
        wake?.();
        yield batch;
        continue;
      }
      if (finished) {
        if (failure) throw failure.error;
        return;
      }
      await new Promise<void>((resolve) => {
        wakeConsumer = resolve;
      });
      wakeConsumer = undefined;
    }
  } finally {
    stopped = true;
    wakeProducer?.();
    await running;
  }
}
