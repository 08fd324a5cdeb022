/** Writing to the CLI's output streams with backpressure, so long dumps stream in bounded memory. */
import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** Writes `text`; waits for `drain` when the stream's buffer is full. */
export async function writeText(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

/** True for the error a closed pipe (`shardwal dump x | head`) gives a writer. */
export function isBrokenPipe(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE';
}
