/**
 * @setpoint/client/watcher: the recovering list+watch state machine (informer/watcher.ts), its
 * pager and the ListWatch contract it reads through — and nothing else.
 *
 * Guarantees: nothing this entry imports, directly or not, is a Node module (node:*), so a
 * browser bundle can take it (the dashboard does); watcher.test.ts checks the import graph. Node
 * code keeps importing the same symbols from '@setpoint/client'.
 */
export { Watcher, isGone, type WatcherEvent, type WatcherHealth, type WatcherMachineState, type WatcherOptions, type WatcherState } from './informer/watcher.js';
export { FIRST_PAGE, listAllPages, pageOptions, readPage, restartAfter, type PageCursor, type PageResult } from './client/pager.js';
export type { ListOptions, ListWatch, WatchEvent, WatchOptions } from './types.js';
