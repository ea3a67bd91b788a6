/**
 * pods/log: `GET /api/v1/namespaces/{ns}/pods/{name}/log?container&follow&previous&tailLines&
 * sinceSeconds&sinceTime&limitBytes&timestamps`, proxied to the node agent that runs the pod, as
 * kube-apiserver's LogREST proxies it to the kubelet:
 *
 *   validate the PodLogOptions (422 Invalid, Kubernetes' messages) → read the pod (404) → pick the
 *   container (400 when a multi-container pod names none, or names one it lacks) → the pod's node
 *   (400 while unscheduled) → the Node's address (InternalIP first) and agent port
 *   (daemonEndpoints.kubeletEndpoint.Port) → `GET {scheme}://{address}:{port}/containerLogs/{ns}/{pod}/{container}?…`
 *   with the API server's kubelet-client credentials → the agent's answer streamed through as
 *   text/plain, chunked, each chunk written as it arrives (kubectl logs -f reads them as they come).
 *
 * An agent's error answer is mapped as kube-apiserver's GenericHttpResponseChecker maps a
 * kubelet's: 400 → BadRequest with the agent's text (`previous terminated container "x" in pod
 * "y" not found`), 500 → InternalError, anything else → the generic Status for that code. The
 * stream ends when the agent ends it, when the client goes away (the agent's request is then
 * aborted), or when the server stops.
 *
 * Decided here, where Kubernetes differs: an unscheduled pod answers 400 `pod x does not have a
 * host assigned` (kube-apiserver answers an empty 204 for logs, that message for exec/attach); a
 * node without an agent endpoint — simulated nodes — answers 400 saying it keeps no logs.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { ApiError, parsePodLogOptions, podLogQuery, realClock, validatePodLogOptions, type Clock, type Logger, type Node, type Pod } from '@setpoint/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResourceRequestInfo } from '../http/requestinfo.js';
import type { ResourceStorage } from '../storage/rest.js';

/** How the API server reaches node agents (kube-apiserver's --kubelet-* flags). */
export interface KubeletClientOptions {
  /** 'https' (default; agents with TLS) or 'http' (plain-HTTP setups, with `token`). */
  readonly scheme?: 'https' | 'http';
  /** The client certificate and key (PEM) the API server presents to agents. */
  readonly clientCertificate?: { readonly cert: string; readonly key: string };
  /** A bearer token sent to agents (setups without a CA). */
  readonly token?: string;
  /** Verify agents' serving certificates against this CA (PEM). Default: not verified, as kube-apiserver without --kubelet-certificate-authority. */
  readonly ca?: string;
  /** Node address types tried in order. Default InternalIP, Hostname, InternalDNS, ExternalDNS, ExternalIP. */
  readonly preferredAddressTypes?: readonly string[];
  /** How long to wait for an agent's response headers. Default 10,000 ms. */
  readonly responseTimeoutMs?: number;
}

/** What the pods/log handler needs of the server. */
export interface PodLogContext {
  readonly pods: ResourceStorage;
  readonly nodes: ResourceStorage;
  /** Undefined: the server has no credentials for agents, and answers 503. */
  readonly kubelet: KubeletClientOptions | undefined;
  readonly stopping: AbortSignal;
  readonly logger: Logger;
  /** The clock the agent's response deadline runs on. Default the real clock. */
  readonly clock?: Clock;
}

const DEFAULT_ADDRESS_TYPES = ['InternalIP', 'Hostname', 'InternalDNS', 'ExternalDNS', 'ExternalIP'];
const SIMULATED_NODE_LABEL = 'node.setpoint.dev/simulated';
/** kube-apiserver reads at most this much of an agent's error answer. */
const MAX_ERROR_BODY = 50_000;

/** The container a request reads, as Kubernetes' LogLocation picks it. Throws BadRequest with its messages. */
export function logContainer(pod: Pod, name: string, requested: string | undefined): string {
  const containers = pod.spec?.containers ?? [];
  const inits = pod.spec?.initContainers ?? [];
  if (requested === undefined || requested === '') {
    if (containers.length === 1) return containers[0]!.name;
    if (containers.length === 0) throw ApiError.badRequest(`a container name must be specified for pod ${name}`);
    let message = `a container name must be specified for pod ${name}, choose one of: [${containers.map((c) => c.name).join(' ')}]`;
    if (inits.length > 0) message += ` or one of the init containers: [${inits.map((c) => c.name).join(' ')}]`;
    throw ApiError.badRequest(message);
  }
  if (![...containers, ...inits].some((c) => c.name === requested)) throw ApiError.badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

/** The agent's address and port on `node`. Throws an ApiError when it has none. */
function agentEndpoint(node: Node, types: readonly string[]): { host: string; port: number } {
  const name = node.metadata.name ?? '';
  const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
  if (port === undefined || port <= 0) {
    if (node.metadata.labels?.[SIMULATED_NODE_LABEL] === 'true') throw ApiError.badRequest(`node "${name}" is simulated: it runs no processes and keeps no container logs`);
    throw ApiError.badRequest(`node "${name}" reports no agent endpoint (status.daemonEndpoints.kubeletEndpoint.Port), so it serves no container logs`);
  }
  const addresses = node.status?.addresses ?? [];
  for (const type of types) {
    const found = addresses.find((a) => a.type === type && a.address !== '');
    if (found !== undefined) return { host: found.address, port };
  }
  throw new ApiError('InternalError', `no preferred addresses found; known addresses: [${addresses.map((a) => `{${a.type} ${a.address}}`).join(' ')}]`);
}

/** An agent's error answer as the Status kube-apiserver makes of a kubelet's (GenericHttpResponseChecker). */
export function agentError(status: number, body: string, name: string): ApiError {
  const text = body.trim();
  if (status === 400) return ApiError.badRequest(text);
  if (status === 500) return ApiError.internal(new Error(text));
  const generic: Record<number, [string, string]> = {
    401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
    403: ['Forbidden', text],
    404: ['NotFound', 'the server could not find the requested resource'],
    422: ['Invalid', 'the server rejected our request due to an error in our request'],
    503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  };
  const [reason, message] = generic[status] ?? [status >= 500 ? 'InternalError' : 'Unknown', status >= 500 ? `an error on the server (${JSON.stringify(text)}) has prevented the request from succeeding` : `the server responded with the status code ${status} but did not return more information`];
  return new ApiError(reason, `${message} ( pods/log ${name})`, {
    code: status,
    details: { name, group: '', kind: 'pods/log', ...(text === '' ? {} : { causes: [{ reason: 'UnexpectedServerResponse', message: text }] }) },
  });
}

async function readLimited(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= MAX_ERROR_BODY) break;
  }
  res.destroy();
  return Buffer.concat(chunks).subarray(0, MAX_ERROR_BODY).toString('utf8');
}

/** Answers a pods/log request (see the file comment). Resolves once the response ended. */
export async function handlePodLog(req: FastifyRequest, reply: FastifyReply, info: ResourceRequestInfo, ctx: PodLogContext): Promise<unknown> {
  if (info.verb !== 'get') throw ApiError.methodNotAllowed(info.verb, { group: '', resource: 'pods/log' });
  const options = parsePodLogOptions(req.query as Record<string, string | string[] | undefined>);
  const invalid = validatePodLogOptions(options);
  if (invalid.length > 0) throw ApiError.invalid({ group: '', kind: 'PodLogOptions' }, info.name, invalid);
  const pod = (await ctx.pods.get(info.namespace, info.name)) as Pod;
  const container = logContainer(pod, info.name, options.container);
  const nodeName = pod.spec?.nodeName ?? '';
  if (nodeName === '') throw ApiError.badRequest(`pod ${info.name} does not have a host assigned`);
  const node = (await ctx.nodes.get('', nodeName)) as Node;
  const kubelet = ctx.kubelet;
  if (kubelet === undefined) throw ApiError.serviceUnavailable('this API server has no credentials for node agents, so it cannot read container logs');
  const { host, port } = agentEndpoint(node, kubelet.preferredAddressTypes ?? DEFAULT_ADDRESS_TYPES);
  const scheme = kubelet.scheme ?? 'https';
  const path = ['containerLogs', info.namespace, info.name, container].map((p) => encodeURIComponent(p)).join('/');
  const query = podLogQuery(options).toString();
  const target = `${scheme}://${isIP(host) === 6 ? `[${host}]` : host}:${port}/${path}${query === '' ? '' : `?${query}`}`;

  const abort = new AbortController();
  const onClose = () => abort.abort();
  // The response closes when the client goes away (or once it ended).
  reply.raw.on('close', onClose);
  ctx.stopping.addEventListener('abort', onClose);
  try {
    const upstream = await connect(target, kubelet, abort.signal, ctx.clock ?? realClock);
    if (upstream.statusCode === undefined || upstream.statusCode < 200 || upstream.statusCode > 206) {
      throw agentError(upstream.statusCode ?? 500, await readLimited(upstream), info.name);
    }
    reply.hijack();
    req.raw.socket.setTimeout(0); // a followed log may be quiet for long
    const res = reply.raw;
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    try {
      await pipeline(upstream, res, { signal: abort.signal });
    } catch (err) {
      // The client went away, the server stops, or the agent broke off: the response just ends.
      if (!abort.signal.aborted) ctx.logger.info({ err, pod: `${info.namespace}/${info.name}`, node: nodeName }, 'pod log stream ended early');
      upstream.destroy();
      if (!res.destroyed) res.destroy();
    }
    return reply;
  } finally {
    reply.raw.off('close', onClose);
    ctx.stopping.removeEventListener('abort', onClose);
  }
}

/** Sends the request to the agent; resolves with its response (any status). Throws an ApiError when it cannot reach it. */
function connect(target: string, kubelet: KubeletClientOptions, signal: AbortSignal, clock: Clock): Promise<IncomingMessage> {
  const https = target.startsWith('https:');
  const options: RequestOptions & { cert?: string; key?: string; ca?: string; rejectUnauthorized?: boolean } = {
    method: 'GET',
    agent: false,
    signal,
    headers: { Accept: 'text/plain', ...(kubelet.token === undefined ? {} : { Authorization: `Bearer ${kubelet.token}` }) },
    ...(https
      ? {
          ...(kubelet.clientCertificate === undefined ? {} : { cert: kubelet.clientCertificate.cert, key: kubelet.clientCertificate.key }),
          ...(kubelet.ca === undefined ? { rejectUnauthorized: false } : { ca: kubelet.ca, rejectUnauthorized: true }),
        }
      : {}),
  };
  return new Promise<IncomingMessage>((resolve, reject) => {
    let request: ClientRequest;
    const fail = (err: Error) => reject(new ApiError('InternalError', `Get "${target}": ${err.message}`, { cause: err }));
    try {
      request = (https ? httpsRequest : httpRequest)(target, options);
    } catch (err) {
      fail(err as Error);
      return;
    }
    const timer = clock.setTimeout(() => request.destroy(new Error(`no answer within ${kubelet.responseTimeoutMs ?? 10_000} ms`)), kubelet.responseTimeoutMs ?? 10_000);
    request.once('response', (res) => {
      timer.cancel();
      resolve(res);
    });
    request.once('error', (err) => {
      timer.cancel();
      fail(err);
    });
    request.end();
  });
}
