/** The process logger: pino, JSON lines to stderr (or a file), at the level the flags ask for. */
import pino from 'pino';
import type { Logger } from '@setpoint/api';
import { LogFile } from './logfile.js';

const levels = ['debug', 'info', 'warn', 'error', 'silent'];

export function createLogger(level: string, file?: string): Logger {
  if (!levels.includes(level)) throw new Error(`--log-level must be one of ${levels.join(', ')}, not "${level}"`);
  // A file: our LogFile, which a full disk cannot crash or hang (logfile.ts); stderr: pino's own.
  const destination = file === undefined ? pino.destination(2) : new LogFile(file);
  const logger = pino({ level, base: { pid: process.pid } }, destination) as unknown as Logger;
  containUnhandledRejections(logger);
  return logger;
}

let contained = false;

/**
 * The last line of containment for a long-running command: a promise rejected with nothing to
 * handle it is logged (with its error) and the process goes on, instead of Node ending the whole
 * control plane for it. Every controller, informer and handler contains its own failures per key
 * (packages/client); reaching this is a bug, and the log line says so. Installed once per process,
 * by the first logger made.
 */
export function containUnhandledRejections(logger: Logger): void {
  if (contained) return;
  contained = true;
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'a promise was rejected and nothing handled it; the process goes on (a bug in Setpoint: please report it)');
  });
}
