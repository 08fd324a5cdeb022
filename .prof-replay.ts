import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayShard } from './lib/recovery/replay.js';
import { FsObjectStore } from './lib/store/fs-store.js';
import { walKey } from './lib/paths.js';
import { logger } from './lib/observability/telemetry.js';
import { flushedWalObject, seededRandom } from './bench/support.js';
import { decodeWal } from './lib/wal/decode.js';
import { gunzipSync, gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { readFile } from 'node:fs/promises';
const gz = promisify(gunzip);
logger.setLogLevel('SILENT');
const dir = process.env.DIR ?? await mkdtemp(join(tmpdir(), 'hf-'));
const store = new FsObjectStore(dir);
const random = seededRandom(42);
const OBJ = 150;
if (!process.env.DIR) {
  let seq = 1, off = 0;
  for (let p = 0; p < OBJ; p++) {
    const batches = [];
    for (let b = 0; b < 20; b++) {
      const rows = [];
      for (let i = 0; i < 100; i++) {
        if (random() < 0.3) { const k = `user-${Math.floor(random()*20000)}`; rows.push(random() < 0.05 ? { key: JSON.stringify(k), delete: true as const } : { key: JSON.stringify(k), text: JSON.stringify({ id: k, balance: Math.floor(random()*1e6)/100, tier: 'pro', updatedAt: 1800000000000+off, tags: ['a','b'] }) }); }
        else rows.push({ text: JSON.stringify({ ts: 1800000000000 + off*3, level: 'info', svc: 'checkout', msg: `request served in ${Math.floor(random()*10000)} ms`, reqId: Math.floor(random()*2**52).toString(16).padStart(13,'0'), user: `user-${Math.floor(random()*100000)}` }) });
        off++;
      }
      batches.push(rows);
    }
    await store.putIfAbsent(walKey('s', p), flushedWalObject('s', p, seq, off - 2000, batches, 1800000000000));
    seq += 20;
  }
  console.log('DIR', dir);
}
const mode = process.argv[2] ?? 'replay';
for (let r = 0; r < Number(process.env.R ?? 5); r++) {
  const c = process.cpuUsage(); const t = performance.now();
  if (mode === 'replay') { const rep = await replayShard(store, 's', { useExport: false }); if (rep.walk.rows !== 300000) console.log(rep.walk); }
  else if (mode === 'decode') { for (let p = 0; p < OBJ; p++) { const k = walKey('s', p); decodeWal(k, (await store.get(k))!); } }
  else if (mode === 'poolfloor') {
    const open = (p: number) => readFile(join(dir, ...walKey('s', p).split('/'))).then((b) => gz(b, { chunkSize: 256 * 1024 }));
    let next = open(0); let lines = 0;
    for (let p = 0; p < OBJ; p++) { const text = await next; if (p + 1 < OBJ) next = open(p + 1); for (let nl = text.indexOf(10); nl !== -1; nl = text.indexOf(10, nl + 1)) lines++; }
  }
  else if (mode === 'floor') { for (let p = 0; p < OBJ; p++) { const k = walKey('s', p); gunzipSync((await store.get(k))!).toString('utf8').split('\n'); } }
  const u = process.cpuUsage(c);
  console.log(mode, (performance.now() - t).toFixed(0), 'ms wall', ((u.user + u.system) / 1000).toFixed(0), 'ms cpu');
}
