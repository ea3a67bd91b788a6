/**
 * Runs the mirror controller against the cluster of your kubeconfig (KUBECONFIG or ~/.kube/config):
 *   npx tsx examples/mirror/main.ts
 */
import { Client, Manager, signalOnTermination } from '@setpoint/client';
import { addMirrorController } from './controller.js';

const client = await Client.fromKubeconfig();
const manager = new Manager({ client, httpAddress: { port: 8081 } });
addMirrorController(manager, client);
console.log('mirror controller running; health and metrics on http://127.0.0.1:8081 (Ctrl-C to stop)');
await manager.start(signalOnTermination());
client.close();
