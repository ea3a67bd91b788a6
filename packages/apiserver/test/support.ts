/**
 * Assertions and object builders shared by the API server's HTTP tests: what a Kubernetes Status
 * answer must look like, small ConfigMap/Node bodies, a deadline-bounded wait for a condition, and
 * a request with a binary body (protobuf) answered as bytes.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { KubeObject } from '@setpoint/api';
import type { TestResponse, TestServer } from './harness.js';

/** The namespaced ConfigMap collection path. */
export const CM = '/api/v1/namespaces/default/configmaps';

/**
 * Asserts an error answer as kube-apiserver writes it: the HTTP code, Content-Type
 * application/json, a v1 Status with status Failure, the same code and reason in the body, and
 * (when given) the exact message or one matching the pattern. Returns the Status body.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function assertStatus(res: TestResponse, code: number, reason: string, message?: string | RegExp): any {
  assert.equal(res.status, code, `HTTP ${res.status}, wanted ${code}: ${res.text.slice(0, 400)}`);
  assert.match(String(res.headers['content-type']), /^application\/json/, 'an error is served as application/json');
  const body = res.body;
  assert.ok(body !== undefined, `the body is JSON: ${res.text.slice(0, 200)}`);
  assert.equal(body.kind, 'Status');
  assert.equal(body.apiVersion, 'v1');
  assert.deepEqual(body.metadata, {});
  assert.equal(body.status, 'Failure');
  assert.equal(body.code, code);
  assert.equal(body.reason, reason);
  if (typeof message === 'string') assert.equal(body.message, message);
  else if (message !== undefined) assert.match(body.message, message);
  return body;
}

/** Asserts a 2xx answer with a JSON body and returns the body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function ok(res: TestResponse, code = 200): any {
  assert.equal(res.status, code, `HTTP ${res.status}, wanted ${code}: ${res.text.slice(0, 400)}`);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  return res.body;
}

/** A ConfigMap body (without apiVersion/kind unless `typed`). */
export function configMap(name: string, data: Record<string, string> = {}, labels?: Record<string, string>, typed = true): KubeObject {
  return {
    ...(typed ? { apiVersion: 'v1', kind: 'ConfigMap' } : {}),
    metadata: { name, ...(labels ? { labels } : {}) },
    data,
  };
}

/** A Node body. */
export function node(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name }, ...extra };
}

/** Creates a ConfigMap in `namespace` (default "default") and returns it as stored. */
export async function createConfigMap(srv: TestServer, name: string, data: Record<string, string> = {}, labels?: Record<string, string>, namespace = 'default'): Promise<KubeObject> {
  return ok(await srv.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, configMap(name, data, labels)), 201);
}

/** The names of a list's items, in the order served. */
export function names(list: { items: KubeObject[] }): string[] {
  assert.ok(Array.isArray(list.items), 'items is an array');
  return list.items.map((i) => i.metadata.name!);
}

/** The store's current revision, as the server reports it on an unfiltered list. */
export async function listRevision(srv: TestServer, path = CM): Promise<number> {
  return Number(ok(await srv.request('GET', path)).metadata.resourceVersion);
}

/** Polls `check` until it returns true, failing after `ms`. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms = 3000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** An answer read as bytes. */
export interface RawResponse {
  readonly status: number;
  readonly contentType: string;
  readonly bytes: Buffer;
}

/** One request with an optional binary body (a protobuf object); the answer as bytes. */
export function rawRequest(srv: TestServer, method: string, path: string, body?: Buffer, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, srv.url), { method, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}
