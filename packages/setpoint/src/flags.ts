/** Parsers for command-line flag values; each throws an Error with a one-line message. */

/** "500ms", "30s", "5m", "1h", "1h30m" → milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (const m of text.matchAll(re)) {
    if (m.index !== consumed) break;
    const n = Number(m[1]);
    total += n * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : m[2] === 'm' ? 60_000 : 3_600_000);
    consumed += m[0].length;
  }
  if (consumed === 0 || consumed !== text.length) throw new Error(`${flag} must be a duration such as 30s, 5m or 1h, not "${text}"`);
  return total;
}

/** A TCP port, 0–65535. */
export function parsePort(text: string, flag = '--port'): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65535) throw new Error(`${flag} must be a port number from 0 to 65535, not "${text}"`);
  return n;
}

/** One of `choices`. */
export function parseChoice<T extends string>(text: string, choices: readonly T[], flag: string): T {
  if (!(choices as readonly string[]).includes(text)) throw new Error(`${flag} must be one of ${choices.join(', ')}, not "${text}"`);
  return text as T;
}

/** Whether `host` is a loopback address or name. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** "http://a:2379,https://b:2379" → the URLs, each http(s)://host[:port]. */
export function parseEndpoints(text: string, flag: string): string[] {
  const urls = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (urls.length === 0) throw new Error(`${flag} must list at least one URL, such as http://127.0.0.1:2379`);
  for (const url of urls) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`${flag}: "${url}" is not a URL such as http://127.0.0.1:2379`);
    }
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.pathname.length > 1 || parsed.search !== '') {
      throw new Error(`${flag}: "${url}" must be http:// or https:// with a host and port only`);
    }
  }
  const schemes = new Set(urls.map((url) => new URL(url).protocol));
  if (schemes.size > 1) throw new Error(`${flag} mixes http:// and https:// URLs`);
  return urls;
}
