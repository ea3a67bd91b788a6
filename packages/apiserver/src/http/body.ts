/**
 * Request bodies: JSON, YAML or Kubernetes' protobuf (built-in kinds) by Content-Type, at most
 * 3 MiB by default (413 beyond, answered by the HTTP layer: http/limits.ts), nested at most
 * MAX_BODY_DEPTH levels deep (400 beyond).
 */
import { ApiError } from '@setpoint/api';
import { isScalar, LineCounter, parseDocument, visit } from 'yaml';
import { PROTOBUF_MEDIA_TYPE, decodeProtobuf, type ProtobufKinds } from './protobuf/index.js';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * The deepest nesting of objects and arrays a body may have; deeper ones are refused with 400
 * before anything walks them (the server's recursive code would run out of stack). Far beyond any
 * real object; Go's JSON decoder, which Kubernetes uses, stops at 10,000.
 */
export const MAX_BODY_DEPTH = 1000;

const jsonTypes = new Set(['application/json', 'application/merge-patch+json', 'application/json-patch+json', 'application/strategic-merge-patch+json']);
const yamlTypes = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'application/apply-patch+yaml']);

/** The media type of a Content-Type header, lower case, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Parses a body; a protobuf body becomes the JSON object it encodes, with apiVersion and kind from
 * its envelope, when `protobufKinds` takes that kind (without it: any kind with a message). An
 * empty body is undefined. Throws BadRequest (malformed) or UnsupportedMediaType.
 */
export function decodeBody(raw: Buffer | undefined, contentType: string | undefined, protobufKinds?: ProtobufKinds): unknown {
  if (raw === undefined || raw.length === 0) return undefined;
  const media = mediaType(contentType);
  // A kind without a protobuf message, or one no resource takes in protobuf (a custom resource),
  // answers 415, and the client uses JSON.
  if (media === PROTOBUF_MEDIA_TYPE) return decodeProtobuf(raw, protobufKinds);
  const text = raw.toString('utf8');
  if (jsonTypes.has(media) || media === '') {
    if (text.length > MAX_BODY_DEPTH && jsonTooDeep(text)) throw tooDeep();
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw ApiError.badRequest(`the body of the request could not be decoded as JSON: ${jsonErrorMessage(err)}`);
    }
  }
  if (yamlTypes.has(media)) {
    let value: unknown;
    try {
      value = parseYaml(text);
    } catch (err) {
      throw ApiError.badRequest(`the body of the request could not be decoded as YAML: ${(err as Error).message.split('\n')[0]}`);
    }
    if (valueTooDeep(value)) throw tooDeep();
    return value;
  }
  throw ApiError.unsupportedMediaType(['application/json', 'application/yaml']);
}

/**
 * A YAML body as JSON. Keys repeated in a map are an error, as the `yaml` library's own check has
 * them ("Map keys must be unique at line L, column C"), found here with one set per map: that
 * check compares each key with every key before it, and an apply of 32,000 keys spent 3 s in it.
 */
function parseYaml(text: string): unknown {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter });
  const [error] = doc.errors;
  if (error !== undefined) throw error;
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        if (!isScalar(key)) continue;
        if (seen.has(key.value)) {
          const { line, col } = lineCounter.linePos(key.range?.[0] ?? 0);
          throw new Error(`Map keys must be unique at line ${line}, column ${col}:`);
        }
        seen.add(key.value);
      }
    },
  });
  return doc.toJS({ maxAliasCount: 100 }) as unknown;
}

/**
 * A JSON.parse error's message without the text V8 quotes around the error (`Unexpected token 'x',
 * ..."k": x"s3cr"... is not valid JSON` becomes `Unexpected token 'x'`): what is parsed may hold a
 * secret, and error messages are logged and audited.
 */
export function jsonErrorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^(Unexpected token .*?), .* is not valid JSON$/s, '$1');
}

function tooDeep(): ApiError {
  return ApiError.badRequest(`the body of the request is nested too deeply: more than ${MAX_BODY_DEPTH} levels of objects and arrays`);
}

/** Whether JSON text nests objects and arrays deeper than MAX_BODY_DEPTH (brackets in strings skipped). */
function jsonTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_BODY_DEPTH) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * Whether a decoded value nests deeper than MAX_BODY_DEPTH, walked without recursion. A YAML alias
 * of an enclosing anchor makes a cycle, which this finds too deep.
 */
function valueTooDeep(value: unknown): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_BODY_DEPTH) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}
