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

/** A line a recordingLogger kept: its level, the bindings of the child it was written to, its fields and message. */
export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly bindings: Readonly<Record<string, unknown>>;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly message: string;
}

/** A logger for tests that keeps every line, its own and its children's, in `lines` (shared by all of them). */
export function recordingLogger(lines: LogLine[] = [], bindings: Readonly<Record<string, unknown>> = {}): Logger & { readonly lines: LogLine[] } {
  const at =
    (level: LogLine['level']) =>
    (fields: object, message: string): void =>
      void lines.push({ level, bindings, fields: fields as Record<string, unknown>, message });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (b: object) => recordingLogger(lines, { ...bindings, ...b }) };
}
