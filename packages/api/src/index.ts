/** @setpoint/api: the object model shared by every Setpoint package. */
export * from './meta/index.js';
export * from './names.js';
export * from './selectors/index.js';
export * from './quantity.js';
export * from './patch/index.js';
export * from './apply/index.js';
export * from './kinds/index.js';
export * from './podlog.js';
export type { Schema } from './schema.js';
export * from './util/index.js';
export { recordingLogger, silentLogger, type LogLine, type Logger } from './log.js';
export type * as k8s from './generated/index.js';
