/**
 * The logging interface every Setpoint component takes: pino's shape (`logger.warn({ fields }, 'msg')`),
 * so a pino logger is passed as is, and tests pass `silentLogger` or a recording one.
 */
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
  /** A logger that adds `bindings` to every line. */
  child(bindings: object): Logger;
}

/** A logger that drops every line. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};
