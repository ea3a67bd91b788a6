/**
 * Runs the greeter controller against the cluster of your kubeconfig (KUBECONFIG or ~/.kube/config):
 *   kubectl apply -f examples/greeter/crd.yaml
 *   npx tsx examples/greeter/main.ts
 */
import { Client, Manager, signalOnTermination } from '@setpoint/client';
import { addGreeterController } from './controller.js';

const client = await Client.fromKubeconfig();
const manager = new Manager({ client, httpAddress: { port: 8082 } });
addGreeterController(manager, client);
console.log('greeter controller running; health and metrics on http://127.0.0.1:8082 (Ctrl-C to stop)');
await manager.start(signalOnTermination());
client.close();
