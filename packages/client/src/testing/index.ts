/** @setpoint/client/testing: an in-process control plane and fakes for controller tests. */
export { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './controlplane.js';
export { FakeClock } from '@setpoint/api';
export { startControlPlaneServingStoreAsIs, storeKey, writeRaw, type RawObject } from './malformed.js';
