/**
 * The items of an async iterator of batches, one at a time: what
 * `for (const item of batch) yield item` in an `async function*` does, without
 * its cost per item (a generator suspends and resumes through several promise
 * jobs for every item it yields, which costs more than reading a WAL row).
 * An item of the batch at hand is handed out at once; only the pull of the
 * next batch waits.
 *
 * It keeps a generator's contract:
 * 1. Calls are served in order; a call made while an earlier one waits is
 *    served after it.
 * 2. `stop()` true before an item: the iteration ends (done) and the batches'
 *    iterator is closed, as a `return` inside the loop would.
 * 3. An error of the batches' iterator rejects that call and ends the
 *    iteration (later calls are done).
 * 4. `return` and `throw` close the batches' iterator (unless it ended), then
 *    resolve done or reject with the error.
 */

const DONE: IteratorReturnResult<void> = { value: undefined, done: true };

/** The items of `batches` in order, as an async generator (see the contract above). */
export class BatchItems<T> implements AsyncGenerator<T, void, undefined> {
  #batch: readonly T[] = [];
  #index = 0;
  #done = false;
  /** Calls not yet settled that took the slow path (rule 1). */
  #waiting = 0;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly batches: AsyncGenerator<readonly T[], void, undefined>,
    private readonly stop: () => boolean,
  ) {}

  next(): Promise<IteratorResult<T, void>> {
    if (this.#waiting === 0 && !this.#done && this.#index < this.#batch.length && !this.stop()) {
      return Promise.resolve({ value: this.#batch[this.#index++]!, done: false });
    }
    return this.#queue(() => this.#pull());
  }

  return(): Promise<IteratorResult<T, void>> {
    return this.#queue(async () => {
      await this.#close();
      return DONE;
    });
  }

  throw(error: unknown): Promise<IteratorResult<T, void>> {
    return this.#queue(async () => {
      await this.#close();
      throw error;
    });
  }

  [Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    return this;
  }

  /** The next item, pulling batches as needed (rules 2 and 3). */
  async #pull(): Promise<IteratorResult<T, void>> {
    while (!this.#done) {
      if (this.stop()) {
        await this.#close();
        break;
      }
      if (this.#index < this.#batch.length)
        return { value: this.#batch[this.#index++]!, done: false };
      let next: IteratorResult<readonly T[], void>;
      try {
        next = await this.batches.next();
      } catch (error) {
        this.#done = true;
        throw error;
      }
      if (next.done) this.#done = true;
      else {
        this.#batch = next.value;
        this.#index = 0;
      }
    }
    return DONE;
  }

  async #close(): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    this.#batch = [];
    await this.batches.return(undefined);
  }

  /** Runs `step` after every earlier call has settled (rule 1). */
  #queue(step: () => Promise<IteratorResult<T, void>>): Promise<IteratorResult<T, void>> {
    this.#waiting += 1;
    const result = this.#chain.then(step);
    const settled = () => {
      this.#waiting -= 1;
    };
    this.#chain = result.then(settled, settled);
    return result;
  }
}
