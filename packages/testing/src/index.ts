/** @setpoint/testing: an in-process control plane and fakes for controller tests (like envtest). */
export { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './controlplane.js';
export { FakeClock } from '@setpoint/api';
export { startControlPlaneServingStoreAsIs, storeKey, writeRaw, type RawObject } from './malformed.js';
