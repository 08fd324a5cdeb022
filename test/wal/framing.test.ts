import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CorruptDataError, InternalError, UnknownRecordTagError } from '../../lib/errors.js';
import { readFrame, readFrameSync } from '../../lib/wal/frame-reader.js';
import {
  encodeFrame,
  FRAME_GZIP_LEVEL,
  type FrameFormat,
  FrameWriter,
} from '../../lib/wal/framing.js';
import { WAL_FRAME } from '../../lib/wal/lines-v1.js';
import { caught } from './helpers.js';

/** A second format on the same framing, shaped like the AOF export will be. */
const TOY: FrameFormat = {
  name: 'TOY',
  magic: 'shardwal-toy',
  version: 3,
  readableVersions: [2, 3],
  recordTags: ['k', 'x'],
};

const RECORDS = [
  { tag: 'k', fields: { key: 'a', row: { n: 1 } } },
  { tag: 'x', fields: { row: { n: 2 } } },
];

/** Streams a framed object the way a large export would: writer chunks piped through gzip. */
async function gzipStreamed(): Promise<Buffer> {
  const writer = new FrameWriter(TOY);
  const lines = [
    writer.header({ coveredPosition: 9 }),
    ...RECORDS.map((r) => writer.record(r.tag, r.fields)),
  ];
  const gzip = Readable.from([...lines, writer.trailer()]).pipe(
    createGzip({ level: FRAME_GZIP_LEVEL }),
  );
  const out: Buffer[] = [];
  for await (const chunk of gzip) out.push(chunk as Buffer);
  return Buffer.concat(out);
}

describe(FrameWriter, () => {
  it('produces what encodeFrame produces when its chunks are gzipped as a stream', async () => {
    const streamed = [...readFrameSync('toy', await gzipStreamed(), TOY)];
    const whole = [...readFrameSync('toy', encodeFrame(TOY, { coveredPosition: 9 }, RECORDS), TOY)];
    expect(streamed).toStrictEqual(whole);
    expect(whole.map((line) => [line.line, line.tag])).toEqual([
      [1, 'h'],
      [2, 'k'],
      [3, 'x'],
    ]);
    expect(whole[0]!.fields).toStrictEqual({
      t: 'h',
      magic: 'shardwal-toy',
      v: 3,
      coveredPosition: 9,
    });
  });

  it('throws InternalError when a record is written before the header', () => {
    expect(() => new FrameWriter(TOY).record('k', {})).toThrow(InternalError);
  });

  it('throws InternalError when a record tag is outside the format', () => {
    const writer = new FrameWriter(TOY);
    writer.header({});
    expect(() => writer.record('r', {})).toThrow(/record tag "r" is not in its tag set/);
  });

  it('throws InternalError when fields carry their own tag', () => {
    expect(() => new FrameWriter(TOY).header({ t: 'x' })).toThrow(/must not contain the tag field/);
  });

  it('throws InternalError when a format reuses the header or trailer tag', () => {
    expect(() => new FrameWriter({ ...TOY, recordTags: ['e'] })).toThrow(InternalError);
  });
});

describe(readFrame, () => {
  it('reads a second format with every tag and version it declares', async () => {
    const lines = [];
    for await (const line of readFrame('toy', Readable.from([await gzipStreamed()]), TOY))
      lines.push(line.tag);
    expect(lines).toEqual(['h', 'k', 'x']);
  });

  it('lists the format own tags when a tag is unknown to it', async () => {
    const bytes = encodeFrame(TOY, {}, RECORDS);
    const thrown = await caught(() => [
      ...readFrameSync('toy', bytes, { ...TOY, recordTags: ['k'] }),
    ]);
    expect(thrown).toBeInstanceOf(UnknownRecordTagError);
    expect(thrown.message).toMatch(/line 3: unknown record tag "x"; expected one of h, k, e/);
  });

  it('rejects one format read as another by its magic', () => {
    const bytes = encodeFrame(TOY, {}, RECORDS);
    expect(() => [...readFrameSync('toy', bytes, WAL_FRAME)]).toThrow(CorruptDataError);
    expect(() => [...readFrameSync('toy', bytes, WAL_FRAME)]).toThrow(
      /expected magic "shardwal-wal", got "shardwal-toy"/,
    );
  });
});
