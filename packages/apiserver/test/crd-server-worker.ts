/**
 * A test API server in a worker thread (for tests that must stay able to time out while the
 * server's thread is busy): posts `{ url }` once listening, stops on the message 'stop'.
 */
import { parentPort } from 'node:worker_threads';
import { startTestServer } from './harness.js';

const srv = await startTestServer();
parentPort!.on('message', (msg) => {
  if (msg === 'stop') void srv[Symbol.asyncDispose]().then(() => parentPort!.close());
});
parentPort!.postMessage({ url: srv.url });
