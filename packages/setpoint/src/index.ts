/** @setpoint/setpoint: the `setpoint` command. */
export { buildProgram, main } from './cli.js';
export { VERSION } from './version.js';
