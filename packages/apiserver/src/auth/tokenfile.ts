/**
 * Static bearer tokens from a file (kube-apiserver's --token-auth-file): CSV, one token a line,
 *
 *   token,user,uid,"group1,group2"
 *
 * The groups column is optional and, holding commas, quoted. CSV as Go's encoding/csv reads it
 * (RFC 4180: `""` is a quote inside a quoted field; a quoted field may span lines). Unlike
 * Kubernetes, which warns about some mistakes and silently ignores others, every mistake is an
 * error naming the file and line: fewer than three columns, more than four (unquoted groups), an
 * empty token or user, a token a Bearer header cannot carry, the same token twice. Blank lines and
 * lines starting with `#` are skipped (no bearer token can start with `#`).
 *
 * The file is read once, when the server starts (as kube-apiserver reads it): edits take effect at
 * the next start.
 */
import { readFile } from 'node:fs/promises';
import type { UserInfo } from './authenticator.js';
import { CredentialsError } from './errors.js';

/** One user of the file, with the line its record starts on. */
export interface TokenFileEntry {
  readonly token: string;
  readonly user: UserInfo;
  readonly line: number;
}

/** RFC 6750 token68 characters: what a bearer token may contain. */
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

interface CsvRecord {
  readonly line: number;
  readonly fields: string[];
}

/** Splits CSV text into records (see the file comment). Throws CredentialsError (Malformed) naming the line. */
function readCsv(text: string, path: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  const fail = (at: number, why: string): never => {
    throw new CredentialsError('Malformed', `${path}:${at}: ${why}`, { path });
  };
  while (i < text.length) {
    const start = line;
    // Skip blank lines and comments.
    const eol = text.indexOf('\n', i);
    const rest = text.slice(i, eol === -1 ? text.length : eol);
    if (rest.trim() === '' || rest.startsWith('#')) {
      i = eol === -1 ? text.length : eol + 1;
      line++;
      continue;
    }
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= text.length) fail(start, 'a quoted field is not closed (missing ")');
          const c = text[i]!;
          if (c === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        const next = text[i];
        if (next !== undefined && next !== ',' && next !== '\n' && !(next === '\r' && text[i + 1] === '\n')) fail(line, 'text after the closing " of a quoted field');
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\n') {
          if (text[i] === '"') fail(line, 'a " inside a field that does not start with one (quote the whole field)');
          field += text[i];
          i++;
        }
        field = field.replace(/\r$/, '');
      }
      fields.push(field);
      if (text[i] === '\r') i++;
      if (text[i] === ',') {
        i++;
        continue;
      }
      // End of the record: a newline or the end of the text.
      if (text[i] === '\n') {
        i++;
        line++;
      }
      break;
    }
    records.push({ line: start, fields });
  }
  return records;
}

/**
 * The users of a token file's text (see the file comment); `path` only names the file in errors.
 * Throws CredentialsError (Malformed) with `path:line: what is wrong` at the first mistake. Never
 * puts a token into a message.
 */
export function parseTokenFile(text: string, path: string): TokenFileEntry[] {
  const entries: TokenFileEntry[] = [];
  const seen = new Map<string, number>();
  for (const { line, fields } of readCsv(text.replace(/^\uFEFF/, ''), path)) {
    const fail = (why: string): never => {
      throw new CredentialsError('Malformed', `${path}:${line}: ${why}`, { path });
    };
    if (fields.length < 3) fail(`expected token,user,uid[,"group1,group2"], found ${fields.length} column${fields.length === 1 ? '' : 's'}`);
    if (fields.length > 4) fail(`expected at most 4 columns (token,user,uid,"group1,group2"), found ${fields.length}: put the groups in one quoted column`);
    const [token, name, uid, groups] = fields as [string, string, string, string | undefined];
    if (token === '') fail('the token is empty');
    if (!TOKEN.test(token)) fail('the token has characters a bearer token cannot carry (RFC 6750: letters, digits, - . _ ~ + / and trailing =)');
    if (name === '') fail('the user name is empty');
    const earlier = seen.get(token);
    if (earlier !== undefined) fail(`the same token as line ${earlier}`);
    seen.set(token, line);
    const user: UserInfo = {
      name,
      ...(uid === '' ? {} : { uid }),
      groups: (groups ?? '').split(',').filter((g) => g !== ''),
    };
    entries.push({ token, user, line });
  }
  return entries;
}

/**
 * Reads and parses a token file (see parseTokenFile). Throws CredentialsError (Malformed) when the
 * file cannot be read or has a mistake, naming the file (and the line).
 */
export async function loadTokenFile(path: string): Promise<TokenFileEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new CredentialsError('Malformed', `cannot read the token file ${path}: ${(err as Error).message}`, { path, cause: err });
  }
  return parseTokenFile(text, path);
}
