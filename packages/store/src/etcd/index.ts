/** The etcd backend: EtcdStore and its election. Tests start a real etcd with `@setpoint/store/testing`. */
export { EtcdStore, type EtcdStoreOptions, type EtcdClusterInfo } from './etcd.js';
export { EtcdElection, type EtcdElectionOptions } from './election.js';
