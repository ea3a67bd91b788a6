/**
 * Request bodies: JSON, YAML or Kubernetes' protobuf (built-in kinds) by Content-Type, at most
 * 3 MiB (413 beyond, answered by the HTTP layer).
 */
import { ApiError } from '@setpoint/api';
import { parse as parseYaml } from 'yaml';
import { PROTOBUF_MEDIA_TYPE, decodeProtobuf } from './protobuf/index.js';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

const jsonTypes = new Set(['application/json', 'application/merge-patch+json', 'application/json-patch+json', 'application/strategic-merge-patch+json']);
const yamlTypes = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'application/apply-patch+yaml']);

/** The media type of a Content-Type header, lower case, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Parses a body; a protobuf body becomes the JSON object it encodes, with apiVersion and kind from
 * its envelope. An empty body is undefined. Throws BadRequest (malformed) or UnsupportedMediaType.
 */
export function decodeBody(raw: Buffer | undefined, contentType: string | undefined): unknown {
  if (raw === undefined || raw.length === 0) return undefined;
  const media = mediaType(contentType);
  // A kind without a protobuf message (a custom resource) answers 415, and the client uses JSON.
  if (media === PROTOBUF_MEDIA_TYPE) return decodeProtobuf(raw);
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
