/**
 * The program of a pod in identity.test.ts, run by a real node agent as the pod's process: it
 * connects with the in-cluster configuration the agent gave it (SETPOINT_SERVICE_ACCOUNT_DIR and
 * KUBERNETES_SERVICE_HOST/PORT), reads its own pod, asks the API server who it is, and prints both
 * as one JSON line on stdout (the container's log). Exits 1 with the error on stderr otherwise.
 */
import { Client } from '@setpoint/client';

const client = await Client.inCluster();
try {
  const pod = await client.pods().get(process.env['POD_NAME'] ?? '');
  const review = await client.http.request<{ status: { userInfo: unknown } }>({
    method: 'POST',
    path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  const result = { namespace: client.namespace, pod: { name: pod.metadata.name, uid: pod.metadata.uid }, user: review.body.status.userInfo };
  console.log(JSON.stringify(result));
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
} finally {
  client.close();
}
