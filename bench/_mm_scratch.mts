import { gzipSync } from 'node:zlib';
import { readFrameSync, readFrame } from '../lib/wal/frame-reader.js';
import { crc32 } from 'node:zlib';
const F = { name: 'X', magic: 'x', version: 1, readableVersions: [1], recordTags: ['r'] };
const a = Buffer.from('{"t":"h","magic":"x","v":1}\n{"t":"r","a":1}\n');
const b = Buffer.from('{"t":"r","a":2}\n');
const crc = crc32(Buffer.concat([a, b]));
const tr = Buffer.from(`{"t":"e","rows":2,"crc32":${crc}}\n`);
const bytes = Buffer.concat([gzipSync(a), gzipSync(Buffer.concat([b, tr]))]);
console.log([...readFrameSync('k', bytes, F)].length);
async function* one() { yield bytes.subarray(0, 30); yield bytes.subarray(30); }
const out = []; for await (const l of readFrame('k', one(), F)) out.push(l); console.log(out.length);
