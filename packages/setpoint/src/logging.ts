/** The process logger: pino, JSON lines to stderr (or a file), at the level the flags ask for. */
import pino from 'pino';
import type { Logger } from '@setpoint/api';

const levels = ['debug', 'info', 'warn', 'error', 'silent'];

export function createLogger(level: string, file?: string): Logger {
  if (!levels.includes(level)) throw new Error(`--log-level must be one of ${levels.join(', ')}, not "${level}"`);
  const destination = file === undefined ? pino.destination(2) : pino.destination({ dest: file, mkdir: true, sync: false });
  return pino({ level, base: { pid: process.pid } }, destination) as unknown as Logger;
}
