/**
 * Request bodies: JSON or YAML by Content-Type, at most 3 MiB (413 beyond, answered by the HTTP
 * layer). Protobuf bodies are refused with 415 until the protobuf codec lands.
 */
import { ApiError } from '@setpoint/api';
import { parse as parseYaml } from 'yaml';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

const jsonTypes = new Set(['application/json', 'application/merge-patch+json', 'application/json-patch+json', 'application/strategic-merge-patch+json']);
const yamlTypes = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'application/apply-patch+yaml']);

/** The media type of a Content-Type header, lower case, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Parses a body. An empty body is undefined. Throws BadRequest (malformed) or UnsupportedMediaType. */
export function decodeBody(raw: Buffer | undefined, contentType: string | undefined): unknown {
  if (raw === undefined || raw.length === 0) return undefined;
  const media = mediaType(contentType);
  const text = raw.toString('utf8');
  if (jsonTypes.has(media) || media === '') {
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw ApiError.badRequest(`the body of the request could not be decoded as JSON: ${(err as Error).message}`);
    }
  }
  if (yamlTypes.has(media)) {
    try {
      return parseYaml(text, { maxAliasCount: 100 }) as unknown;
    } catch (err) {
      throw ApiError.badRequest(`the body of the request could not be decoded as YAML: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  throw ApiError.unsupportedMediaType(['application/json', 'application/yaml']);
}
