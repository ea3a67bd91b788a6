/** @setpoint/setpoint: the `setpoint` command. */
export { buildProgram, main } from './cli.js';
export { VERSION } from './version.js';
export { runCli } from './cli/run.js';
export type { CliIO, TextOutput } from './cli/io.js';
