/**
 * Test support: a small fake Kubernetes API server (plain HTTP) for protocol tests of the verbs
 * whose server side is not everywhere yet — server-side apply and pod logs. It serves discovery for
 * configmaps, pods (with pods/log) and apps/v1 deployments, GET of stored objects, apply patches
 * (201 when created; the resourceVersion moves only when the object changed; a negative
 * Deployment spec.replicas answers 422 as kube-apiserver words it), and a pod log that can follow.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeObject } from '@setpoint/api';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly contentType: string | undefined;
  readonly body: string;
}

export interface StubApi extends AsyncDisposable {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Stored objects by path ("/api/v1/namespaces/default/configmaps/web"). */
  readonly objects: Map<string, KubeObject>;
  /** Lines a followed log gets next (write, then the stub sends them). */
  sendLog(text: string): void;
  /** Writes a kubeconfig for the stub into `dir` and returns its path. */
  kubeconfig(dir: string): Promise<string>;
  close(): Promise<void>;
}

function status(res: ServerResponse, code: number, reason: string, message: string, details?: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code, ...(details === undefined ? {} : { details }) }));
}

function json(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const coreResources = [
  { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['get', 'list', 'patch'], shortNames: ['cm'] },
  { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list', 'patch'], shortNames: ['po'] },
  { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
];
const appsResources = [{ name: 'deployments', singularName: 'deployment', namespaced: true, kind: 'Deployment', verbs: ['get', 'list', 'patch'], shortNames: ['deploy'] }];

export async function startStubApi(): Promise<StubApi> {
  const requests: RecordedRequest[] = [];
  const objects = new Map<string, KubeObject>();
  const followers = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  let revision = 100;
  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    const path = url.pathname;
    if (path === '/api') return json(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
    if (path === '/apis') return json(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [{ name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } }] });
    if (path === '/api/v1') return json(res, 200, { kind: 'APIResourceList', groupVersion: 'v1', resources: coreResources });
    if (path === '/apis/apps/v1') return json(res, 200, { kind: 'APIResourceList', groupVersion: 'apps/v1', resources: appsResources });
    const log = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/.exec(path);
    if (log !== null) {
      if (!objects.has(`/api/v1/namespaces/${log[1]}/pods/${log[2]}`)) return status(res, 404, 'NotFound', `pods "${log[2]}" not found`);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write(`log of ${url.searchParams.get('container')}\n`);
      if (url.searchParams.get('follow') === 'true') {
        followers.add(res);
        res.on('close', () => followers.delete(res));
        return;
      }
      return res.end();
    }
    const m = /^\/(?:api\/v1|apis\/apps\/v1)\/namespaces\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(path);
    if (m === null) return status(res, 404, 'NotFound', 'the server could not find the requested resource');
    const [, , resource, name] = m;
    const current = objects.get(path);
    if (req.method === 'GET') return current === undefined ? status(res, 404, 'NotFound', `${resource}${resource === 'deployments' ? '.apps' : ''} "${name}" not found`) : json(res, 200, current);
    if (req.method !== 'PATCH') return status(res, 405, 'MethodNotAllowed', 'not in this stub');
    if (req.headers['content-type'] !== 'application/apply-patch+yaml') return status(res, 415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/apply-patch+yaml');
    const patch = JSON.parse(body) as KubeObject & { spec?: { replicas?: number } };
    if (patch.kind === 'Deployment' && typeof patch.spec?.replicas === 'number' && patch.spec.replicas < 0) {
      const field = 'spec.replicas';
      return status(res, 422, 'Invalid', `Deployment.apps "${name}" is invalid: ${field}: Invalid value: ${patch.spec.replicas}: must be greater than or equal to 0`, {
        name,
        group: 'apps',
        kind: 'Deployment',
        causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: ${patch.spec.replicas}: must be greater than or equal to 0`, field }],
      });
    }
    const { metadata, ...rest } = patch;
    const strip = (o: KubeObject | undefined) => (o === undefined ? undefined : JSON.stringify({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } }));
    const next = { ...rest, metadata: { ...current?.metadata, ...metadata, resourceVersion: current?.metadata.resourceVersion } } as KubeObject;
    const changed = strip(next) !== strip(current);
    if (changed) next.metadata.resourceVersion = String(++revision);
    objects.set(path, next);
    return json(res, current === undefined ? 201 : 200, next);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', contentType: req.headers['content-type'], body });
      handle(req, res, body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url,
    requests,
    objects,
    sendLog: (text) => {
      for (const res of followers) res.write(text);
    },
    async kubeconfig(dir) {
      const path = join(dir, 'stub-kubeconfig.yaml');
      await writeFile(path, `apiVersion: v1\nkind: Config\nclusters: [{name: stub, cluster: {server: "${url}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: stub, context: {cluster: stub, user: u}}]\ncurrent-context: stub\n`);
      return path;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
