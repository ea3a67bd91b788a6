/**
 * A node agent in a process of its own, for the restart-safety test (which kills it with SIGKILL):
 *
 *   node --conditions=setpoint-src --import tsx agent-process.ts <server URL> <node name> <data dir>
 *
 * Process runtime, short crash-loop backoff; stops on SIGTERM, leaving its pods running.
 */
import { Client, signalOnTermination } from '@setpoint/client';
import { runAgent } from '../agent.js';

const [server, nodeName, dataDir] = process.argv.slice(2);
if (server === undefined || nodeName === undefined || dataDir === undefined) {
  console.error('usage: agent-process.ts <server URL> <node name> <data dir>');
  process.exit(2);
}
const client = new Client({ server }, { qps: 1000, burst: 1000 });
try {
  await runAgent({ client, nodeName, dataDir, signal: signalOnTermination(), crashLoopBackoff: { initialMs: 300, maxMs: 1200 } });
} finally {
  client.close();
}
