/**
 * Fault test — fuzzing a real `setpoint up` (SQLite, controller-manager, scheduler and a node agent
 * running pods as processes, all in one process, as a user runs it). Each request is a real object
 * of one of eight kinds with random fields set to hostile values (wrong JSON types, integers past
 * int32 and int64, non-finite and fractional numbers, nulls, emoji and U+FFFF in field names and
 * values, deep nesting), sent as JSON, YAML or protobuf (encoded from the mutated object, or with
 * its bytes flipped), as a create, an update, a patch of each type (JSON, merge, strategic with
 * directives, apply) or a delete, with random query parameters and Accept/Content-Type headers;
 * reads, lists and watches get random query parameters.
 *
 * Checked for every request: no answer is a 5xx; every error answer is a Kubernetes Status whose
 * code is the HTTP status; an answer that is not 2xx left the object as it was (what clients and
 * controllers see: spec, data, labels, annotations, finalizers — not status, which controllers
 * write all along); the process is alive. At the end: it still answers /readyz, and its loops
 * still reconcile — a new Deployment gets a running pod (controllers, scheduler, agent) and the
 * fuzzed namespace is emptied and removed (namespace controller, garbage collector).
 *
 * Two more phases, each against a fresh `setpoint up`:
 * - a full disk (a tmpfs for the data dir, filled to its last byte, the store's reserve and
 *   whatever it frees taken too): the only 5xx allowed is the store's 503 "the disk is full", which
 *   must change nothing like any refusal; the process lives on; once space is freed it takes writes
 *   again and reconciles, without a restart;
 * - a store holding a malformed object of each kind (written straight into state.db, as an older
 *   version or a buggy server could): a GET of one answers 500 naming its key and lists leave it
 *   out; the fuzzed requests also aim at them (a 500 that they cannot be decoded is the only 5xx
 *   allowed, and changes nothing); the process lives and reconciles.
 *
 * The seed is random on each run and printed; FUZZ_SEED=<n> replays a run, FUZZ_RUNS=<n> sets how
 * many requests (default 600), FUZZ_PHASE_RUNS=<n> how many in each of the other phases (300),
 * FUZZ_TRACE=<file> appends every request sent to that file as a JSON line.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import { appendFileSync, closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { encodeProtobuf } from '@setpoint/apiserver';
import { SqliteStore } from '@setpoint/store';
import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';
import { Api, TransportError, type Answer } from './support/api.js';
import { adminCredentials, setpoint, stopAll, tempDir, type Proc } from './support/processes.js';
import { waitFor } from './support/wait.js';

const SEED = process.env.FUZZ_SEED !== undefined && process.env.FUZZ_SEED !== 'random' ? Number(process.env.FUZZ_SEED) : randomInt(2 ** 31);
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);
const NS = 'fuzz';
/** Requests in each of the full-disk and malformed-store phases. */
const PHASE_RUNS = Number(process.env.FUZZ_PHASE_RUNS ?? 300);
/** A file each request is appended to, as a JSON line (the body in base64), to replay a run's requests one by one. */
const TRACE = process.env.FUZZ_TRACE;
/** Names of the objects each kind's updates, patches and deletes aim at. */
const TARGETS = ['t0', 't1'];
/** The name of the malformed object of each kind in the malformed-store phase. */
const MALFORMED_NAME = 'm0';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface KindDef {
  readonly collection: string;
  readonly base: (name: string) => JsonObject;
}

/** A pod spec the scheduler cannot place (no node has the label), so fuzzed pods never run. */
const unplaceable = (): JsonObject => ({
  nodeSelector: { 'fuzz.setpoint.dev/nowhere': 'true' },
  terminationGracePeriodSeconds: 1,
  containers: [
    {
      name: 'c',
      image: 'busybox',
      command: ['sleep', '1'],
      env: [{ name: 'A', value: '1' }],
      ports: [{ containerPort: 8080, protocol: 'TCP' }],
      resources: { requests: { cpu: '10m', memory: '16Mi' } },
    },
  ],
});

const KINDS: Readonly<Record<string, KindDef>> = {
  configmaps: { collection: `/api/v1/namespaces/${NS}/configmaps`, base: (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'fuzz' } }, data: { k: 'v' } }) },
  secrets: { collection: `/api/v1/namespaces/${NS}/secrets`, base: (name) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque', data: { k: 'dg==' } }) },
  pods: { collection: `/api/v1/namespaces/${NS}/pods`, base: (name) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'fuzz' } }, spec: unplaceable() }) },
  deployments: {
    collection: `/apis/apps/v1/namespaces/${NS}/deployments`,
    base: (name) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: unplaceable() } },
    }),
  },
  leases: {
    collection: `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`,
    base: (name) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: 'fuzz', leaseDurationSeconds: 10 } }),
  },
  events: {
    collection: `/api/v1/namespaces/${NS}/events`,
    base: (name) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name },
      involvedObject: { kind: 'Pod', name: 'p', namespace: NS, apiVersion: 'v1' },
      reason: 'Fuzzed',
      message: 'a fuzzed event',
      type: 'Normal',
      count: 1,
    }),
  },
  serviceaccounts: { collection: `/api/v1/namespaces/${NS}/serviceaccounts`, base: (name) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } }) },
  roles: {
    collection: `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`,
    base: (name) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] }),
  },
};
const KIND_NAMES = Object.keys(KINDS);

// ---- generators ----

/** Number literals JSON.parse cannot keep (they are put into the body text as they are). */
const RAW_NUMBERS = ['1e400', '-1e400', '2147483648', '-2147483649', '9223372036854775808', '18446744073709551616', '1.5', '0.1e1', '-0', '1E2'];
const rawNumber = (literal: string) => `\u0000num:${literal}\u0000`;

const hostileName = fc.constantFrom('😀', '\uFFFF', 'a'.repeat(300), '__proto__', 'constructor', '', ' ', '$patch', 'metadata', 'x\ny', 'é', 'kind', 'x"y', '\\');
const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>({}, [], 0, -1, 1.5, 2147483648, 1e308, '', 'x', '\uFFFF', '😀', '\u0000', [null], [{}], { '😀': 'x' }, true, false, null, 'true', '-1', '1Gi', 'x'.repeat(70_000)),
  fc.constantFrom(...RAW_NUMBERS).map(rawNumber),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 12 }),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
  fc.nat({ max: 200 }).map((depth) => {
    let v: Json = 'deep';
    for (let i = 0; i < depth; i++) v = i % 2 === 0 ? { a: v } : [v];
    return v;
  }),
);

interface Mutation {
  readonly at: number;
  readonly action: 'set' | 'add' | 'delete';
  readonly name: string;
  readonly value: Json;
}
const mutation: fc.Arbitrary<Mutation> = fc.record({ at: fc.nat(), action: fc.constantFrom('set', 'set', 'add', 'delete'), name: hostileName, value: hostileValue });

type Verb = 'create' | 'update' | 'json-patch' | 'merge-patch' | 'strategic-patch' | 'apply' | 'delete' | 'get' | 'list' | 'watch';
type Encoding = 'json' | 'yaml' | 'protobuf' | 'protobuf-flipped' | 'garbage';

interface Plan {
  readonly kind: string;
  readonly verb: Verb;
  readonly target: number;
  readonly mutations: readonly Mutation[];
  readonly encoding: Encoding;
  readonly accept: string;
  readonly wrongContentType: string | undefined;
  readonly query: ReadonlyArray<readonly [string, string]>;
  readonly flips: readonly number[];
  readonly patchOps: ReadonlyArray<{ readonly op: string; readonly at: number; readonly from: number; readonly value: Json }>;
}

const QUERY_KEYS = ['dryRun', 'fieldValidation', 'fieldManager', 'force', 'resourceVersion', 'resourceVersionMatch', 'limit', 'continue', 'labelSelector', 'fieldSelector', 'propagationPolicy', 'gracePeriodSeconds', 'allowWatchBookmarks', 'pretty', 'orphanDependents'];
const QUERY_VALUES = ['All', 'true', 'false', 'maybe', 'Strict', 'Warn', 'Ignore', '', '0', '-1', '1e3', 'abc', '99999999999999999999', 'Exact', 'NotOlderThan', 'Foreground', 'Orphan', 'Background', 'a=b', 'a in (', 'metadata.name=t0', 'spec.nodeName=x', '😀', 'x'.repeat(200), 'fuzz'];

const plan: fc.Arbitrary<Plan> = fc.record({
  kind: fc.constantFrom(...KIND_NAMES),
  verb: fc.constantFrom<Verb>('create', 'create', 'update', 'update', 'json-patch', 'merge-patch', 'strategic-patch', 'apply', 'delete', 'get', 'list', 'watch'),
  target: fc.nat({ max: 5 }),
  mutations: fc.array(mutation, { minLength: 1, maxLength: 4 }),
  encoding: fc.constantFrom<Encoding>('json', 'json', 'json', 'json', 'yaml', 'protobuf', 'protobuf-flipped', 'garbage'),
  accept: fc.constantFrom('application/json', 'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/json;as=Table;v=v1;g=meta.k8s.io', '*/*', 'text/html'),
  // One request in ten says its body is something else (fc.option's freq is the odds of *no* value).
  wrongContentType: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 9 },
    { arbitrary: fc.constantFrom('text/plain', 'application/xml', 'application/json; charset=utf-16', 'multipart/form-data', ''), weight: 1 },
  ),
  query: fc.array(fc.tuple(fc.constantFrom(...QUERY_KEYS), fc.constantFrom(...QUERY_VALUES)), { maxLength: 3 }),
  flips: fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
  patchOps: fc.array(fc.record({ op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'), at: fc.nat(), from: fc.nat(), value: hostileValue }), { minLength: 1, maxLength: 3 }),
});

// ---- building requests ----

/** Every path in `value` (JSON pointer segments), the root first. */
function paths(value: Json, prefix: string[] = [], out: string[][] = []): string[][] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...prefix, String(i)], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out);
  return out;
}

function parentOf(root: Json, path: readonly string[]): { parent: Json; key: string } | undefined {
  if (path.length === 0) return undefined;
  let node: Json = root;
  for (const seg of path.slice(0, -1)) node = Array.isArray(node) ? node[Number(seg)]! : (node as JsonObject)[seg]!;
  return { parent: node, key: path[path.length - 1]! };
}

/** `obj` with the mutations applied (on a copy). */
function mutate(obj: JsonObject, mutations: readonly Mutation[]): JsonObject {
  const copy = structuredClone(obj);
  for (const m of mutations) {
    // A copy of the value: the same sampled object inserted twice, one inside the other, would be a cycle.
    const value = structuredClone(m.value);
    const all = paths(copy);
    const path = all[m.at % all.length]!;
    const found = parentOf(copy, path);
    let node: Json = copy;
    for (const seg of path) node = Array.isArray(node) ? node[Number(seg)]! : (node as JsonObject)[seg]!;
    if (m.action === 'add' && node !== null && typeof node === 'object' && !Array.isArray(node)) {
      Object.defineProperty(node, m.name, { value, enumerable: true, writable: true, configurable: true });
    } else if (found !== undefined && m.action === 'delete') {
      if (Array.isArray(found.parent)) found.parent.splice(Number(found.key), 1);
      else delete (found.parent as JsonObject)[found.key];
    } else if (found !== undefined) {
      if (Array.isArray(found.parent)) found.parent[Number(found.key)] = value;
      else Object.defineProperty(found.parent, found.key, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  return copy;
}

/** JSON text with the raw number placeholders put back as bare literals. */
function jsonText(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0000num:([^"\\]*)\\u0000"/g, '$1');
}

function encodeBody(obj: Json, p: Plan): { body: Buffer; contentType: string } {
  switch (p.encoding) {
    case 'yaml':
      return { body: Buffer.from(toYaml(obj)), contentType: 'application/yaml' };
    case 'protobuf':
    case 'protobuf-flipped': {
      let bytes: Buffer | undefined;
      try {
        bytes = encodeProtobuf(obj);
      } catch {
        bytes = undefined; // a wrong type the encoder cannot write: send the JSON instead
      }
      if (bytes === undefined) return { body: Buffer.from(jsonText(obj)), contentType: 'application/json' };
      if (p.encoding === 'protobuf-flipped') {
        bytes = Buffer.from(bytes);
        for (const f of p.flips) bytes[f % bytes.length] = (bytes[f % bytes.length]! + 1 + (f % 255)) & 0xff;
      }
      return { body: bytes, contentType: 'application/vnd.kubernetes.protobuf' };
    }
    case 'garbage':
      return { body: Buffer.from(p.flips.map((f) => String.fromCharCode(f % 256)).join('')), contentType: 'application/json' };
    default:
      return { body: Buffer.from(jsonText(obj)), contentType: 'application/json' };
  }
}

function pointer(path: readonly string[]): string {
  return path.map((s) => '/' + s.replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

interface Request {
  readonly method: string;
  readonly path: string;
  readonly body?: Buffer;
  readonly headers: Record<string, string>;
  /** The object the request may change; undefined for reads. */
  readonly target?: { readonly kind: string; readonly name: string };
}

function buildRequest(p: Plan, index: number, targets: readonly string[]): Request {
  const def = KINDS[p.kind]!;
  const name = targets[p.target % targets.length]!;
  const query = new URLSearchParams(p.query.map(([k, v]): [string, string] => [k, v]));
  const headers: Record<string, string> = { accept: p.accept };
  const withBody = (obj: Json, contentType?: string) => {
    const encoded = encodeBody(obj, p);
    headers['content-type'] = p.wrongContentType ?? contentType ?? encoded.contentType;
    return contentType === undefined ? encoded.body : Buffer.from(jsonText(obj));
  };
  const q = () => (query.size > 0 ? `?${query}` : '');
  switch (p.verb) {
    case 'create': {
      const fresh = `f${index}`;
      return { method: 'POST', path: def.collection + q(), body: withBody(mutate(def.base(fresh), p.mutations)), headers, target: { kind: p.kind, name: fresh } };
    }
    case 'update':
      return { method: 'PUT', path: `${def.collection}/${name}${q()}`, body: withBody(mutate(def.base(name), p.mutations)), headers, target: { kind: p.kind, name } };
    case 'merge-patch':
    case 'strategic-patch': {
      const patch = mutate(def.base(name), p.mutations);
      delete patch.apiVersion;
      delete patch.kind;
      if (p.verb === 'strategic-patch') {
        // Directives where the object has lists and maps.
        const spec = typeof patch.spec === 'object' && patch.spec !== null && !Array.isArray(patch.spec) ? patch.spec : undefined;
        const d = p.flips[0]! % 4;
        if (d === 0) patch.$patch = p.mutations[0]!.value;
        if (d === 1 && spec !== undefined) spec.$setElementOrder = p.mutations[0]!.value;
        if (d === 2 && spec !== undefined) spec.$retainKeys = [p.mutations[0]!.name, 'containers'];
        if (d === 3) patch.metadata = { ...(typeof patch.metadata === 'object' ? (patch.metadata as JsonObject) : {}), $deleteFromPrimitiveList: { finalizers: p.mutations[0]!.value } } as JsonObject;
      }
      const contentType = p.verb === 'merge-patch' ? 'application/merge-patch+json' : 'application/strategic-merge-patch+json';
      return { method: 'PATCH', path: `${def.collection}/${name}${q()}`, body: withBody(patch, contentType), headers, target: { kind: p.kind, name } };
    }
    case 'json-patch': {
      const base = def.base(name);
      const all = paths(base).filter((x) => x.length > 0);
      const ops = p.patchOps.map((o) => {
        const path = o.at % 7 === 0 ? ['metadata'] : all[o.at % all.length]!;
        const op: JsonObject = { op: o.op, path: pointer(path) };
        if (o.op === 'move' || o.op === 'copy') op.from = pointer(all[o.from % all.length]!);
        if (o.op !== 'remove') op.value = o.value;
        return op;
      });
      return { method: 'PATCH', path: `${def.collection}/${name}${q()}`, body: withBody(ops, 'application/json-patch+json'), headers, target: { kind: p.kind, name } };
    }
    case 'apply': {
      if (!query.has('fieldManager')) query.set('fieldManager', 'fuzz');
      const obj = mutate(def.base(name), p.mutations);
      headers['content-type'] = p.wrongContentType ?? 'application/apply-patch+yaml';
      return { method: 'PATCH', path: `${def.collection}/${name}${q()}`, body: Buffer.from(p.encoding === 'yaml' ? toYaml(obj) : jsonText(obj)), headers, target: { kind: p.kind, name } };
    }
    case 'delete': {
      const options = mutate({ apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, propagationPolicy: 'Background' }, p.mutations);
      return { method: 'DELETE', path: `${def.collection}/${name}${q()}`, ...(p.flips[0]! % 2 === 0 ? { body: withBody(options, 'application/json') } : {}), headers, target: { kind: p.kind, name } };
    }
    case 'get':
      return { method: 'GET', path: `${def.collection}/${name}${q()}`, headers };
    case 'list':
      return { method: 'GET', path: def.collection + q(), headers };
    case 'watch': {
      query.set('watch', '1');
      query.set('timeoutSeconds', '1');
      return { method: 'GET', path: def.collection + q(), headers };
    }
  }
}

// ---- what must hold ----

/** What clients and controllers read of an object: everything but status and bookkeeping. */
function declared(answer: Answer): unknown {
  if (answer.status === 404) return 'absent';
  if (answer.status !== 200) return `status ${answer.status}`;
  const { status: _status, metadata, ...rest } = answer.body as { status?: unknown; metadata: Record<string, unknown> };
  const { resourceVersion: _rv, managedFields: _mf, annotations, ...meta } = metadata;
  const kept = Object.entries((annotations ?? {}) as Record<string, string>).filter(([k]) => k !== 'deployment.kubernetes.io/revision');
  return { ...rest, metadata: { ...meta, annotations: Object.fromEntries(kept) } };
}

function isStatusBody(answer: Answer): boolean {
  const b = answer.body as { kind?: unknown; apiVersion?: unknown; status?: unknown; code?: unknown } | undefined;
  return typeof b === 'object' && b !== null && b.kind === 'Status' && b.apiVersion === 'v1' && b.status === 'Failure' && b.code === answer.status;
}

/** A 503 for the full disk (the store's message). */
function diskFull(answer: Answer): boolean {
  return answer.status === 503 && /the disk is full/.test(String((answer.body as { message?: unknown } | undefined)?.message));
}

/** Appends zeros to `path` until the volume has no room left. */
function fillDisk(path: string): void {
  const fd = openSync(path, 'a', 0o600);
  try {
    for (const size of [1024 * 1024, 4096, 512]) {
      const chunk = Buffer.alloc(size);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** Each kind's malformed object: what an older version or a buggy server could have stored (a string: not even JSON). */
const MALFORMED: Readonly<Record<string, (meta: JsonObject) => JsonObject | string>> = {
  configmaps: (metadata) => ({ metadata, data: 5 }),
  secrets: () => '{"metadata": {"name": "m0"', // cut short
  pods: (metadata) => ({ metadata, spec: { nodeName: {}, containers: [{ name: 'c', image: 'busybox' }] } }),
  deployments: (metadata) => ({ metadata, spec: { replicas: 'x', selector: { matchLabels: { app: 'm' } }, template: { metadata: { labels: { app: 'm' } }, spec: unplaceable() } } }),
  leases: (metadata) => ({ metadata, spec: { holderIdentity: 'x', leaseDurationSeconds: 1e20 } }),
  events: (metadata) => ({ metadata, involvedObject: 5, reason: 'X' }),
  serviceaccounts: (metadata) => ({ metadata: { ...metadata, labels: [1] } }),
  roles: (metadata) => ({ metadata, rules: {} }),
};

/** Writes each kind's malformed object (named MALFORMED_NAME in NS) straight into the SQLite store at `path`. */
async function writeMalformed(path: string): Promise<Array<[string, string]>> {
  const store = await SqliteStore.open({ path });
  try {
    for (const kind of KIND_NAMES) {
      const group = KINDS[kind]!.collection.startsWith('/api/v1/') ? 'core' : KINDS[kind]!.collection.split('/')[2]!;
      const metadata: JsonObject = { name: MALFORMED_NAME, namespace: NS, uid: randomUUID(), creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
      const value = MALFORMED[kind]!(metadata);
      await store.create(`/registry/${group}/${kind}/${NS}/${MALFORMED_NAME}`, typeof value === 'string' ? value : JSON.stringify(value));
    }
  } finally {
    await store.close();
  }
  return KIND_NAMES.map((kind) => [kind, MALFORMED_NAME]);
}

interface Up {
  readonly proc: Proc;
  readonly url: string;
  readonly dataDir: string;
}

async function startUp(dataDir: string): Promise<Up> {
  const proc = setpoint('up', ['up', '--data-dir', dataDir, '--port', '0', '--log-level', 'warn']);
  try {
    const m = await proc.waitForOutput(/API server ready at (https?:\/\/[^\s]+)/, 90_000);
    await proc.waitForOutput(/press Ctrl-C/, 60_000);
    return { proc, url: m[1]!, dataDir };
  } catch (err) {
    await proc.kill();
    throw err;
  }
}

interface Counts {
  requests: number;
  answered: number;
  fiveHundreds: number;
  /** 5xx that the phase expects (a full disk's 503), each still checked to have changed nothing. */
  expectedFiveHundreds: number;
  notStatus: number;
  partialWrites: number;
  transportErrors: number;
  crashes: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
}

interface Phase {
  /** Names the fuzzed requests aim their updates, patches and deletes at. */
  readonly targets: readonly string[];
  /** Whether a 5xx answer is what this phase expects (it must still be a Status and change nothing). */
  readonly expected5xx?: (answer: Answer) => boolean;
  /** Whether `kind/name` is there to be aimed at; the default: it exists and is not terminating. */
  readonly present?: (kind: string, name: string, got: Answer) => boolean;
  /** What the target is on a 404 (default: created afresh, so that most requests hit something). */
  readonly recreate?: boolean;
  /** Called before each request (its index in the phase). */
  readonly before?: (i: number) => void;
}

const describeRequest = (i: number, r: Request) => `#${i} ${r.method} ${r.path} [${r.headers['content-type'] ?? ''} → ${r.headers.accept}] ${r.body === undefined ? '' : r.body.toString('utf8').slice(0, 300)}`;

/**
 * Sends `plans` one by one and checks each answer: no 5xx but those the phase expects, every error
 * a Status, an answer that is not 2xx left its target as it was, the process alive.
 */
async function fuzz(admin: Api, up: Up, plans: readonly Plan[], phase: Phase, offset: number): Promise<{ counts: Counts; findings: string[] }> {
  const counts: Counts = { requests: 0, answered: 0, fiveHundreds: 0, expectedFiveHundreds: 0, notStatus: 0, partialWrites: 0, transportErrors: 0, crashes: 0, statuses: {} };
  const findings: string[] = [];
  const present = phase.present ?? ((_kind: string, _name: string, got: Answer) => got.status === 200 && got.body.metadata.deletionTimestamp === undefined);
  /** The target is there (so that nothing but the request changes it). */
  /** What the target's GET answered last (named when it never becomes present). */
  let seen = '';
  const ensure = (kind: string, name: string) =>
    waitFor(`${kind}/${name} to be there to aim at`, async () => {
      const got = await admin.request('GET', `${KINDS[kind]!.collection}/${name}`);
      seen = `${got.status} ${JSON.stringify(got.body).slice(0, 600)}`;
      if (present(kind, name, got)) return true;
      if (got.status === 404) {
        if (phase.recreate === false) return true;
        await admin.request('POST', KINDS[kind]!.collection, KINDS[kind]!.base(name));
      } else if (got.status === 200 && got.body.metadata.deletionTimestamp !== undefined && (got.body.metadata.finalizers ?? []).length > 0) {
        // Deleted while a fuzzed write had given it a finalizer nobody serves: let it go, as an admin would.
        await admin.request('PATCH', `${KINDS[kind]!.collection}/${name}`, { metadata: { finalizers: null } }, { contentType: 'application/merge-patch+json' });
      }
      return false;
    }, 60_000, 100);
  let last = '(none)';
  for (let i = 0; i < plans.length; i++) {
    phase.before?.(i);
    const r = buildRequest(plans[i]!, i + offset, phase.targets);
    if (r.target !== undefined && phase.targets.includes(r.target.name)) {
      // A server that stopped answering is named with the request sent last.
      await ensure(r.target.kind, r.target.name).catch((err: Error) => {
        throw new Error(`${err.message}; the request before: ${last}; its GET answered ${seen}`, { cause: err });
      });
    }
    const targetPath = r.target === undefined ? undefined : `${KINDS[r.target.kind]!.collection}/${r.target.name}`;
    const before = targetPath === undefined ? undefined : declared(await admin.request('GET', targetPath));
    counts.requests++;
    last = describeRequest(i, r);
    if (TRACE !== undefined) appendFileSync(TRACE, `${JSON.stringify({ i, method: r.method, path: r.path, headers: r.headers, body: r.body?.toString('base64') })}\n`);
    let answer: Answer | undefined;
    try {
      answer = await admin.send(r.method, r.path, { ...(r.body === undefined ? {} : { body: r.body }), headers: r.headers, timeoutMs: 20_000 });
      counts.answered++;
    } catch (err) {
      if (!(err instanceof TransportError)) throw err;
      counts.transportErrors++;
      findings.push(`no answer: ${err.message} — ${describeRequest(i, r)}`);
    }
    if (!up.proc.running) {
      counts.crashes++;
      findings.push(`the process exited after ${describeRequest(i, r)}\n${up.proc.tail()}`);
      break;
    }
    if (answer === undefined) continue;
    counts.statuses[answer.status] = (counts.statuses[answer.status] ?? 0) + 1;
    if (answer.status >= 500) {
      if (phase.expected5xx?.(answer) === true) counts.expectedFiveHundreds++;
      else {
        counts.fiveHundreds++;
        findings.push(`${answer.status} ${JSON.stringify(answer.body).slice(0, 300)} — ${describeRequest(i, r)}`);
      }
    }
    if (answer.status >= 400 && !isStatusBody(answer)) {
      counts.notStatus++;
      findings.push(`${answer.status} answered without a Status: ${String(JSON.stringify(answer.body)).slice(0, 200)} — ${describeRequest(i, r)}`);
    }
    if (targetPath !== undefined && (answer.status < 200 || answer.status > 299)) {
      const afterwards = declared(await admin.request('GET', targetPath));
      if (JSON.stringify(afterwards) !== JSON.stringify(before)) {
        counts.partialWrites++;
        findings.push(`${answer.status} left a change behind: ${JSON.stringify(before).slice(0, 300)} → ${JSON.stringify(afterwards).slice(0, 300)} — ${describeRequest(i, r)}`);
      }
    }
  }
  return { counts, findings };
}

/** What must be 0 after a phase. */
function failures(counts: Counts) {
  const { fiveHundreds, notStatus, partialWrites, transportErrors, crashes } = counts;
  return { fiveHundreds, notStatus, partialWrites, transportErrors, crashes };
}
const NONE = { fiveHundreds: 0, notStatus: 0, partialWrites: 0, transportErrors: 0, crashes: 0 };

/** The process serves and its loops reconcile: a new Deployment gets a ready pod, and `namespaces` (with it) are emptied and removed. */
async function stillReconciles(admin: Api, up: Up, namespaces: readonly string[], check: string): Promise<void> {
  assert.ok(up.proc.running, `setpoint up is alive (seed ${SEED})`);
  assert.equal((await admin.request('GET', '/readyz')).status, 200, 'it is ready');
  await admin.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: check } });
  await admin.ok('POST', `/apis/apps/v1/namespaces/${check}/deployments`, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'alive' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'alive' } }, template: { metadata: { labels: { app: 'alive' } }, spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: 'busybox', command: ['sleep', '600'] }] } } },
  });
  await waitFor('the Deployment has a ready pod (controllers, scheduler and agent at work)', async () => {
    const d = await admin.ok('GET', `/apis/apps/v1/namespaces/${check}/deployments/alive`);
    return d.status?.readyReplicas === 1;
  }, 120_000, 250);
  const all = [...namespaces, check];
  for (const ns of all) await admin.ok('DELETE', `/api/v1/namespaces/${ns}`);
  await waitFor('the fuzzed namespaces are emptied and gone (namespace controller, garbage collector, agent)', async () => {
    const gone = await Promise.all(all.map(async (ns) => (await admin.request('GET', `/api/v1/namespaces/${ns}`)).status === 404));
    return gone.every(Boolean);
  }, 180_000, 500);
}

/** Stops `up` (SIGTERM, then SIGKILL after 20 s). */
async function stopUp(up: Up | undefined): Promise<void> {
  if (up?.proc.running !== true) return;
  up.proc.child.kill('SIGTERM');
  await Promise.race([up.proc.exited, new Promise((r) => setTimeout(r, 20_000))]);
  if (up.proc.running) await up.proc.kill();
}

const replay = (runs: number) => `FUZZ_SEED=${SEED} FUZZ_RUNS=${runs} node --conditions=setpoint-src --import tsx --test packages/setpoint/test/faults/fuzz.fault.ts`;

/** `setpoint up` on `dataDir`, an admin client for it, and the fuzzed namespace made. */
async function startFuzzed(dataDir: string): Promise<{ up: Up; api: Api; creds: Awaited<ReturnType<typeof adminCredentials>> }> {
  const up = await startUp(dataDir);
  const creds = await adminCredentials(dataDir);
  const api = new Api(up.url, { ...creds, timeoutMs: 20_000 });
  await api.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  return { up, api, creds };
}

/** Prints a phase's counts and its first findings. */
function report(phase: string, counts: Counts, findings: readonly string[]): void {
  console.log(`fuzz${phase}: seed ${SEED}: ${JSON.stringify(counts)}`);
  for (const f of findings.slice(0, 20)) console.log(`fuzz finding${phase}: ${f}`);
}

describe('fuzzing a real setpoint up', () => {
  after(stopAll);

  it(`${RUNS} hostile requests: no 5xx, errors are Statuses, refused writes change nothing, the process lives and reconciles`, { timeout: 900_000 }, async () => {
    console.log(`fuzz: seed ${SEED}, ${RUNS} requests (replay: ${replay(RUNS)})`);
    const dir = await tempDir('fuzz');
    let api: Api | undefined;
    let up: Up | undefined;
    try {
      ({ up, api } = await startFuzzed(dir.path));
      const { counts, findings } = await fuzz(api, up, fc.sample(plan, { seed: SEED, numRuns: RUNS }), { targets: TARGETS }, 0);
      report('', counts, findings);
      await stillReconciles(api, up, [NS], 'fuzz-check');
      assert.deepEqual(failures(counts), NONE, `seed ${SEED}: ${findings.slice(0, 5).join('\n')}`);
    } finally {
      api?.close();
      await stopUp(up);
      await stopAll();
      await dir.remove();
    }
  });

  const notRoot = process.getuid?.() !== 0;
  it(
    `on a full disk: ${PHASE_RUNS} hostile requests get no 5xx but the disk's 503, which changes nothing; the process lives, and once space is freed it takes writes and reconciles without a restart`,
    { timeout: 900_000, skip: notRoot ? 'mounting a tmpfs needs root (CI runs as root)' : false },
    async () => {
      console.log(`fuzz (full disk): seed ${SEED}, ${PHASE_RUNS} requests (replay: ${replay(RUNS)})`);
      const dir = await tempDir('fuzz-full');
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=160m,mode=0700', 'tmpfs', dir.path]);
      let api: Api | undefined;
      let up: Up | undefined;
      const filler = join(dir.path, 'filler');
      try {
        ({ up, api } = await startFuzzed(dir.path));
        const admin = api;
        for (const kind of KIND_NAMES) for (const name of TARGETS) await admin.ok('POST', KINDS[kind]!.collection, KINDS[kind]!.base(name));
        // A pod that writes output all along, whose log the agent cannot write once the disk is full.
        await admin.ok('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'chatty' },
          spec: { replicas: 1, selector: { matchLabels: { app: 'chatty' } }, template: { metadata: { labels: { app: 'chatty' } }, spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'while true; do echo a line of output; sleep 0.05; done'] }] } } },
        });
        await waitFor('the chatty pod to run', async () => (await admin.ok('GET', `/apis/apps/v1/namespaces/${NS}/deployments/chatty`)).status?.readyReplicas === 1, 120_000, 250);
        fillDisk(filler);
        // The store notices on its next write that needs room: a create of some size.
        await waitFor('a create to be refused for the full disk', async () => {
          const res = await admin.request('POST', KINDS.configmaps!.collection, { ...KINDS.configmaps!.base(`big-${Date.now()}`), data: { blob: 'x'.repeat(400_000) } });
          return res.status === 503 && diskFull(res);
        }, 60_000, 200);
        const plans = fc.sample(plan, { seed: SEED + 1, numRuns: PHASE_RUNS });
        // The store gave its reserve back to the volume; take that too, and whatever compaction or
        // the write-ahead log's truncation frees along the way: not one byte left.
        // A target deleted on a full disk cannot be created again: aim at what is left.
        const { counts, findings } = await fuzz(admin, up, plans, { targets: TARGETS, expected5xx: diskFull, recreate: false, before: (i) => i % 20 === 0 && fillDisk(filler) }, RUNS);
        report(' (full disk)', counts, findings);
        assert.ok(counts.expectedFiveHundreds > 0, 'the disk was full: some writes were refused with 503');
        assert.ok(up.proc.running, 'setpoint up is alive on the full disk');
        assert.deepEqual(failures(counts), NONE, `full disk, seed ${SEED}: ${findings.slice(0, 5).join('\n')}`);

        // Space freed outside the store: writes are taken again, without a restart.
        rmSync(filler);
        await waitFor('creates to be taken again once space is freed', async () => {
          const res = await admin.request('POST', KINDS.configmaps!.collection, KINDS.configmaps!.base(`after-${Date.now()}`));
          return res.status === 201;
        }, 60_000, 200);
        await stillReconciles(admin, up, [NS], 'fuzz-check-full');
      } finally {
        api?.close();
        await stopUp(up);
        await stopAll();
        rmSync(filler, { force: true });
        execFileSync('umount', ['-l', dir.path]);
        await dir.remove();
      }
    },
  );

  it(`on a store holding malformed objects: ${PHASE_RUNS} hostile requests, some aimed at them; only their GETs answer 500 (naming the key), nothing else does, and the process lives and reconciles`, { timeout: 900_000 }, async () => {
    console.log(`fuzz (malformed store): seed ${SEED}, ${PHASE_RUNS} requests (replay: ${replay(RUNS)})`);
    const dir = await tempDir('fuzz-malformed');
    let api: Api | undefined;
    let up: Up | undefined;
    try {
      const started = await startFuzzed(dir.path);
      ({ up, api } = started);
      const { creds } = started;
      api.close();
      await stopUp(up);
      // Written straight into state.db, as an older version or a buggy server could have.
      const malformed = await writeMalformed(join(dir.path, 'state.db'));
      up = await startUp(dir.path);
      api = new Api(up.url, { ...creds, timeoutMs: 20_000 });
      const admin = api;
      for (const [kind, name] of malformed) {
        const got = await admin.request('GET', `${KINDS[kind]!.collection}/${name}`);
        assert.equal(got.status, 500, `GET ${kind}/${name}: ${JSON.stringify(got.body)}`);
        assert.ok(isStatusBody(got) && String((got.body as { message?: unknown }).message).includes(`/${kind}/${NS}/${name}`), `the 500 names the key: ${JSON.stringify(got.body)}`);
        const listed = await admin.ok('GET', KINDS[kind]!.collection);
        assert.ok(!(listed.items as Array<{ metadata: { name: string } }>).some((o) => o.metadata.name === name), `a list leaves ${kind}/${name} out`);
      }
      const isMalformedGet = (answer: Answer) => answer.status === 500 && /cannot be decoded/.test(String((answer.body as { message?: unknown }).message));
      const targets = [...TARGETS, MALFORMED_NAME];
      const plans = fc.sample(plan, { seed: SEED + 2, numRuns: PHASE_RUNS });
      // A malformed target stays as it is until a request replaces or deletes it; only then is it created afresh.
      const { counts, findings } = await fuzz(admin, up, plans, {
        targets,
        expected5xx: isMalformedGet,
        present: (kind, name, got) => (name === MALFORMED_NAME && got.status === 500) || (got.status === 200 && got.body.metadata.deletionTimestamp === undefined),
      }, RUNS + PHASE_RUNS);
      report(' (malformed store)', counts, findings);
      await stillReconciles(admin, up, [NS], 'fuzz-check-malformed');
      assert.deepEqual(failures(counts), NONE, `malformed store, seed ${SEED}: ${findings.slice(0, 5).join('\n')}`);
    } finally {
      api?.close();
      await stopUp(up);
      await stopAll();
      await dir.remove();
    }
  });
});
