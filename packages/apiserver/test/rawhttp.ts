/**
 * A raw HTTP/1.1 exchange over a socket: sends bytes exactly as given (whatever Node's own client
 * would refuse to send: odd methods, unencoded paths, wrong Content-Length) and reads the first
 * answer. For fuzz tests.
 */
import net from 'node:net';

export interface RawAnswer {
  /** 0 when the server closed the connection without answering. */
  readonly status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** A chunked 200 answer (a watch or log stream): only its head was read. */
  readonly stream: boolean;
}

export interface RawExchangeOptions {
  /** Ends the sending side after the request (the server sees EOF). */
  readonly halfClose?: boolean;
  /** The request was HEAD: the answer has no body whatever its headers say. */
  readonly head?: boolean;
  /** Rejects when no complete answer came in this many ms. Default 10,000. */
  readonly timeoutMs?: number;
}

/** Sends `request` on a new connection to 127.0.0.1:`port` and reads the first answer. */
export function rawExchange(port: number, request: Buffer, options: RawExchangeOptions = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = (outcome: RawAnswer | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const timer = setTimeout(() => finish(new Error(`no complete answer within ${options.timeoutMs ?? 10_000} ms; got ${JSON.stringify(data.toString('latin1').slice(0, 300))}`)), options.timeoutMs ?? 10_000);
    const tryParse = (closed: boolean) => {
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) {
        if (closed) finish({ status: 0, headers: {}, body: data, stream: false });
        return;
      }
      const lines = data.subarray(0, end).toString('latin1').split('\r\n');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
      if (m === null) return finish(new Error(`not an HTTP answer: ${JSON.stringify(lines[0])}`));
      const status = Number(m[1]);
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
      }
      const rest = data.subarray(end + 4);
      if (status >= 100 && status < 200) {
        // An interim answer (100 Continue): the real one follows.
        data = rest;
        return tryParse(closed);
      }
      if (options.head === true || status === 204 || status === 304) return finish({ status, headers, body: Buffer.alloc(0), stream: false });
      if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
        if (status === 200) return finish({ status, headers, body: rest, stream: true });
        const body = dechunk(rest);
        if (body !== undefined) finish({ status, headers, body, stream: false });
        else if (closed) finish(new Error(`the connection closed in a chunked body (HTTP ${status})`));
        return;
      }
      const length = headers['content-length'];
      if (length !== undefined) {
        const n = Number(length);
        if (rest.length >= n) finish({ status, headers, body: rest.subarray(0, n), stream: false });
        else if (closed) finish(new Error(`the connection closed after ${rest.length} of ${n} body bytes (HTTP ${status})`));
        return;
      }
      if (closed) finish({ status, headers, body: rest, stream: false });
    };
    socket.on('connect', () => {
      socket.write(request);
      if (options.halfClose === true) socket.end();
    });
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      tryParse(false);
    });
    socket.on('close', () => tryParse(true));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // A reset after (or instead of) the answer: parse what came.
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') tryParse(true);
      else finish(err);
    });
  });
}

/** The body of a complete chunked encoding, or undefined while incomplete. */
function dechunk(raw: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) return undefined;
    const size = parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    if (raw.length < eol + 2 + size + 2) return undefined;
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}
