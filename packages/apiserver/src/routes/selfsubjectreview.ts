/**
 * SelfSubjectReview (authentication.k8s.io/v1): POST /apis/authentication.k8s.io/v1/selfsubjectreviews
 * answers 201 with who the request authenticated as — `kubectl auth whoami`. The request body (an
 * empty SelfSubjectReview, in JSON or protobuf) carries nothing the answer depends on and is not
 * read. Nothing is stored. The kind is listed in discovery (discovery/discovery.ts).
 */
import { ApiError } from '@setpoint/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserInfo } from '../auth/authenticator.js';
import type { ResourceRequestInfo } from '../http/requestinfo.js';
import { negotiateMedia, send } from '../http/respond.js';
import { notFoundPath } from './resources.js';

export const AUTHENTICATION_GROUP = 'authentication.k8s.io';

/** The user of a server without authentication (tests): Kubernetes' anonymous user. */
const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/** Whether a request is for the selfsubjectreviews resource (any verb, any version). */
export function isSelfSubjectReview(info: ResourceRequestInfo): boolean {
  return info.group === AUTHENTICATION_GROUP && info.resource === 'selfsubjectreviews';
}

/** Answers a request isSelfSubjectReview accepted: create at v1 only (404 elsewhere, 405 for other verbs). */
export async function handleSelfSubjectReview(req: FastifyRequest, reply: FastifyReply, info: ResourceRequestInfo, user: UserInfo | undefined, now: number): Promise<unknown> {
  if (info.version !== 'v1' || info.namespace !== '' || info.name !== '' || info.subresource !== '') throw notFoundPath();
  if (info.verb !== 'create') throw new ApiError('MethodNotAllowed', 'the server does not allow this method on the requested resource');
  const media = negotiateMedia(req.headers.accept);
  const who = user ?? ANONYMOUS;
  const userInfo = {
    username: who.name,
    ...(who.uid !== undefined ? { uid: who.uid } : {}),
    groups: [...who.groups],
    ...(who.extra !== undefined ? { extra: who.extra } : {}),
  };
  return send(
    reply,
    201,
    {
      kind: 'SelfSubjectReview',
      apiVersion: `${AUTHENTICATION_GROUP}/v1`,
      metadata: { creationTimestamp: new Date(now).toISOString().replace(/\.\d+Z$/, 'Z') },
      status: { userInfo },
    },
    media.encoding === 'yaml' ? 'yaml' : 'json',
  );
}
