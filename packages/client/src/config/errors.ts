/**
 * ConfigError: why a kubeconfig, an in-cluster environment or an exec credential plugin cannot
 * give a usable ClientConfig or credential. The message is one line that names the file (or the
 * plugin's command) and the field, so a person can go and fix it.
 */

/** Where a configuration problem is. */
export interface ConfigErrorOptions {
  /** The file the problem is in (kubeconfig, token file, CA file), when there is one. */
  readonly file?: string;
  /** The field, in kubeconfig terms: `users["admin"].user.client-key-data`, `current-context`. */
  readonly field?: string;
  readonly cause?: unknown;
}

/**
 * A configuration that cannot be used. `message` is one line: `FILE: FIELD: problem` (either
 * prefix absent when unknown); `file` and `field` are also kept apart for programs.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly file: string | undefined;
  readonly field: string | undefined;

  constructor(problem: string, options: ConfigErrorOptions = {}) {
    const prefix = [options.file, options.field].filter((p): p is string => p !== undefined && p !== '').join(': ');
    const text = (prefix === '' ? problem : `${prefix}: ${problem}`).replace(/\s*\n\s*/g, ' ');
    super(text, options.cause === undefined ? undefined : { cause: options.cause });
    this.file = options.file;
    this.field = options.field;
  }
}
