/**
 * Warning response headers as kube-apiserver writes them (apimachinery's NewWarningHeader and the
 * apiserver's warning recorder): `299 - "<text>"`, the text quoted with `"` and `\` escaped and
 * everything else sent as is, in UTF-8; a text holding a control character (Go's
 * unicode.IsControl: U+0000–U+001F, U+007F–U+009F) is dropped, as kube drops a header it cannot
 * build; repeated texts are sent once; once the texts exceed 4096 in all, every text is cut to 256
 * and texts past the 4096 are left out.
 *
 * Where this differs from kube-apiserver, on purpose: kube counts those sizes in runes, this counts
 * them in UTF-8 bytes (the same for ASCII), so four-byte characters cannot carry the headers past
 * Node's 16 KiB default limit for a response head (client-node refuses bigger ones); and at most
 * {@link MAX_WARNING_LINES} Warning lines are sent, so the response stays under the 100 header lines
 * Python's http.client accepts. Nothing here throws: the value is a string Node's setHeader takes
 * (UTF-8 bytes carried one per char, as Node writes header strings in latin1).
 */

/** The texts' total size (UTF-8 bytes) beyond which each is truncated and further ones dropped. */
export const WARNING_TOTAL_BYTES = 4096;
/** The size (UTF-8 bytes) each text is cut to once the total is exceeded. */
export const WARNING_ITEM_BYTES = 256;
/** The most Warning header lines one response carries. */
export const MAX_WARNING_LINES = 50;

/** Go's unicode.IsControl: C0 controls, DEL and C1 controls. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The Warning header values (warn-code 299, agent "-") for `texts`, deduplicated, escaped and
 * capped as described above, ready for `reply.header('Warning', values)`. Lone surrogates (which
 * Go's JSON decoder would have read as U+FFFD) become U+FFFD. Never throws.
 */
export function warningHeaderValues(texts: readonly string[]): string[] {
  const seen = new Set<string>();
  const ordered: string[] = [];
  for (const raw of texts) {
    if (typeof raw !== 'string' || raw === '') continue;
    const text = wellFormed(raw);
    if (seen.has(text) || CONTROL.test(text)) continue;
    seen.add(text);
    ordered.push(text);
  }
  // The recorder's steps, warning by warning: added while the total fits; the first that does not
  // turns truncation on, and every warning so far is sent again cut to the item size; then, while
  // truncating, each further one is cut and added until the total is reached.
  let values: string[] = [];
  let written = 0;
  let truncating = false;
  for (let i = 0; i < ordered.length; i++) {
    if (truncating && written >= WARNING_TOTAL_BYTES) break;
    const text = truncating ? truncateUtf8(ordered[i]!, WARNING_ITEM_BYTES) : ordered[i]!;
    const size = Buffer.byteLength(text, 'utf8');
    if (truncating || written + size <= WARNING_TOTAL_BYTES) {
      written += size;
      values.push(headerValue(text));
      continue;
    }
    truncating = true;
    written = 0;
    values = [];
    for (const earlier of ordered.slice(0, i + 1)) {
      const cut = truncateUtf8(earlier, WARNING_ITEM_BYTES);
      written += Buffer.byteLength(cut, 'utf8');
      values.push(headerValue(cut));
    }
  }
  return values.slice(0, MAX_WARNING_LINES);
}

/** `299 - "text"` with `"` and `\` escaped, as UTF-8 bytes one per char. */
function headerValue(text: string): string {
  const quoted = `299 - "${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  return Buffer.from(quoted, 'utf8').toString('latin1');
}

/** `text` with lone surrogates replaced by U+FFFD. */
function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** The longest prefix of `text` (whole code points) that fits in `bytes` UTF-8 bytes. */
function truncateUtf8(text: string, bytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= bytes) return text;
  let used = 0;
  let end = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (used + size > bytes) break;
    used += size;
    end += ch.length;
  }
  return text.slice(0, end);
}

/** The text of a Warning header value as sent (UTF-8 decoded), for tests and clients. */
export function decodeWarningHeaderValue(value: string): string {
  return Buffer.from(value, 'latin1').toString('utf8');
}
