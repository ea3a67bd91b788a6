/** Events about objects, written as client-go's tools/record writes them: aggregated, counted, rate-limited. */
export { EventBroadcaster } from './broadcaster.js';
export type { EventBroadcasterOptions, EventClient } from './broadcaster.js';
export { EventCorrelator } from './correlator.js';
export type { CorrelateResult, EventCorrelatorOptions, EventPatch } from './correlator.js';
export { referenceTo } from './recorder.js';
export type { EventRecorder, EventSourceOptions, EventType } from './recorder.js';
export { FakeEventRecorder } from './fake.js';
export type { RecordedEvent } from './fake.js';
