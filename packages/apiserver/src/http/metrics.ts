/**
 * The API server's Prometheus metrics (prom-client), named as kube-apiserver names them where it
 * has the same metric.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class ApiMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'apiserver_request_total',
    help: 'Requests by verb, group, version, resource, subresource and HTTP code.',
    labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'code'] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Request latency by verb, resource and subresource (watches excluded).',
    labelNames: ['verb', 'group', 'version', 'resource', 'subresource'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly watchers = new Gauge({
    name: 'apiserver_registered_watchers',
    help: 'Open watches by group and resource.',
    labelNames: ['group', 'resource'] as const,
    registers: [this.registry],
  });
  readonly watchEvents = new Counter({
    name: 'apiserver_watch_events_total',
    help: 'Watch events sent by group and resource.',
    labelNames: ['group', 'resource'] as const,
    registers: [this.registry],
  });
  readonly storeRevision = new Gauge({
    name: 'setpoint_store_revision',
    help: 'The store revision (resourceVersion) last written.',
    registers: [this.registry],
  });
  readonly storeCompactRevision = new Gauge({
    name: 'setpoint_store_compact_revision',
    help: 'The revision the store history was last compacted at.',
    registers: [this.registry],
  });
  readonly storeObjects = new Gauge({
    name: 'apiserver_storage_objects',
    help: 'Objects held in the watch cache, by resource.',
    labelNames: ['resource'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
