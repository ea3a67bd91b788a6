/**
 * A progress line on stderr for long operations (applying many objects, waiting), redrawn in
 * place — only when stderr is a terminal, so logs and pipes never see it.
 */
import type { CliIO } from './io.js';

const CLEAR_LINE = '\r\x1b[2K';

export class Progress {
  readonly #io: CliIO;
  readonly #enabled: boolean;
  #shown = '';

  constructor(io: CliIO) {
    this.#io = io;
    this.#enabled = io.stderrIsTTY;
  }

  /** Shows `text` in place of the previous progress line. */
  update(text: string): void {
    if (!this.#enabled) return;
    this.#shown = text;
    this.#io.stderr.write(`${CLEAR_LINE}${text}`);
  }

  /** Prints `line` to stdout (or stderr) above the progress line, which stays. */
  print(line: string, stream: 'stdout' | 'stderr' = 'stdout'): void {
    if (this.#enabled && this.#shown !== '') this.#io.stderr.write(CLEAR_LINE);
    this.#io[stream].write(line.endsWith('\n') ? line : `${line}\n`);
    if (this.#enabled && this.#shown !== '') this.#io.stderr.write(this.#shown);
  }

  /** Removes the progress line. */
  done(): void {
    if (this.#enabled && this.#shown !== '') this.#io.stderr.write(CLEAR_LINE);
    this.#shown = '';
  }
}
