/**
 * Column alignment as Go's text/tabwriter does it, because kubectl prints through it and people
 * (and scripts) are used to the result: text is cut into lines and tab-terminated cells; a column
 * block is a run of consecutive lines that have a cell in that column, and every cell of a block
 * is padded to the block's widest cell plus `padding`, at least `minWidth`. The last cell of a line
 * (after its last tab) is never padded. Widths count characters (code points), as Go counts runes.
 *
 * kubectl get prints with minWidth 6, padding 3 (and remembers widths between flushes, so the rows
 * of a watch stay aligned with the table above them); kubectl describe with minWidth 0, padding 2.
 */

export interface TabWriterOptions {
  /** The least width of a padded cell, padding included. */
  readonly minWidth: number;
  /** Spaces added to the widest cell of a column block. */
  readonly padding: number;
  /** Keep each column's width across flushes, growing only (liggitt/tabwriter's RememberWidths). */
  readonly rememberWidths?: boolean;
}

function width(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Buffers text and aligns it on flush(). */
export class TabWriter {
  readonly #options: TabWriterOptions;
  readonly #remembered: number[] = [];
  #pending = '';

  constructor(options: TabWriterOptions) {
    this.#options = options;
  }

  /** Adds text: cells end with '\t', lines with '\n'. */
  write(text: string): void {
    this.#pending += text;
  }

  /** The aligned text of everything written since the last flush (a trailing partial line included). */
  flush(): string {
    const text = this.#pending;
    this.#pending = '';
    if (text === '') return '';
    const endsWithNewline = text.endsWith('\n');
    const lines = (endsWithNewline ? text.slice(0, -1) : text).split('\n').map((line) => line.split('\t'));
    const out: string[] = [];
    this.#format(lines, [], 0, lines.length, out);
    const joined = out.join('\n');
    return endsWithNewline ? joined + '\n' : joined;
  }

  #format(lines: string[][], widths: number[], line0: number, line1: number, out: string[]): void {
    const column = widths.length;
    let start = line0;
    for (let at = line0; at < line1; at++) {
      if (column >= lines[at]!.length - 1) continue;
      // A block of lines with a cell in this column begins here.
      this.#writeLines(lines, widths, start, at, out);
      start = at;
      let cellWidth = this.#options.minWidth;
      for (; at < line1; at++) {
        const line = lines[at]!;
        if (column >= line.length - 1) break;
        cellWidth = Math.max(cellWidth, width(line[column]!) + this.#options.padding);
      }
      if (this.#options.rememberWidths) {
        cellWidth = Math.max(cellWidth, this.#remembered[column] ?? 0);
        this.#remembered[column] = cellWidth;
      }
      widths.push(cellWidth);
      this.#format(lines, widths, start, at, out);
      widths.pop();
      start = at;
    }
    this.#writeLines(lines, widths, start, line1, out);
  }

  #writeLines(lines: string[][], widths: readonly number[], from: number, to: number, out: string[]): void {
    for (let i = from; i < to; i++) {
      const cells = lines[i]!;
      let text = '';
      cells.forEach((cell, j) => {
        text += cell;
        if (j < widths.length && j < cells.length - 1) text += ' '.repeat(Math.max(0, widths[j]! - width(cell)));
      });
      out.push(text);
    }
  }
}

/** Aligns `text` in one go (describe output, one-off tables). */
export function alignColumns(text: string, options: TabWriterOptions): string {
  const writer = new TabWriter(options);
  writer.write(text);
  return writer.flush();
}

/** kubectl get's table layout. */
export const GET_LAYOUT: TabWriterOptions = { minWidth: 6, padding: 3, rememberWidths: true };

/** kubectl describe's layout. */
export const DESCRIBE_LAYOUT: TabWriterOptions = { minWidth: 0, padding: 2 };
