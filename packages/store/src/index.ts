/** @setpoint/store: the versioned key-value store and its backends. */
export * from './store.js';
export { compareKeys } from './validate.js';
export { MemoryStore } from './memory/memory.js';
export { SqliteStore, isCorruptDatabase, type SqliteStoreOptions, type SqliteStoreStats } from './sqlite/sqlite.js';
export { Compactor, type CompactorOptions, type CompactorStatus, type Leadership } from './compactor.js';
export { EtcdStore, EtcdElection, type EtcdStoreOptions, type EtcdClusterInfo, type EtcdElectionOptions } from './etcd/index.js';
