// The thread `startDynalite` runs dynalite in (`dynalite-server.ts`). Plain
// JavaScript, so it loads in a worker without the TypeScript loader.
import { parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';

const server = dynalite({
  path: workerData.path,
  createTableMs: 0,
  deleteTableMs: 0,
  updateTableMs: 0,
});
server.once('error', (error) => parentPort.postMessage({ error: error.message }));
server.listen(workerData.port, '127.0.0.1', () => {
  parentPort.postMessage({ port: server.address().port });
});
parentPort.on('message', (message) => {
  // dynalite's close also closes its store, so a persisted folder is left whole.
  if (message === 'close') server.close(() => process.exit(0));
});
