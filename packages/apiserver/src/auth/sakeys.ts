/**
 * The key pair ServiceAccount tokens are signed with (kube-apiserver's
 * --service-account-signing-key-file and --service-account-key-file), kept in the data dir:
 *
 *   DATA/sa.key   the private key, PEM PKCS#8 (mode 0600): signs new tokens
 *   DATA/sa.pub   the public keys tokens are accepted from, PEM (mode 0600, as every file of the data dir), one or more
 *
 * At first start an ECDSA P-256 pair is generated (tokens are then ES256); an operator may put an
 * RSA key (RS256) or another ECDSA curve there instead. sa.pub may list several keys, so that
 * tokens of a previous key stay valid during a rotation; the signing key's own public half is
 * always accepted. Every API server of a cluster must have the same files (copy them, as ca.crt
 * and ca.key).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { silentLogger, type Logger } from '@setpoint/api';
import { CredentialsError } from './errors.js';
import { createFileExclusive, readFileIfExists, readSecretFile, writeFileAtomic } from './files.js';
import { algorithmOf, keyId } from './jwt.js';

/** File names of the ServiceAccount token keys in the data dir. */
export const serviceAccountKeyFiles = {
  privateKey: 'sa.key',
  publicKeys: 'sa.pub',
} as const;

/** What signs and what verifies ServiceAccount tokens. */
export interface ServiceAccountKeys {
  /** Signs new tokens. */
  readonly signingKey: KeyObject;
  /** Verify presented tokens: the keys of sa.pub and the signing key's public half, without repeats. */
  readonly verifyingKeys: readonly KeyObject[];
}

function pemPublicKey(key: KeyObject): string {
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

/** Every PEM public key in `text`. Throws CredentialsError (Malformed) naming `path`. */
export function parsePublicKeys(text: string, path: string): KeyObject[] {
  const blocks = text.match(/-----BEGIN (?:RSA )?PUBLIC KEY-----[\s\S]*?-----END (?:RSA )?PUBLIC KEY-----/g) ?? [];
  if (blocks.length === 0) throw new CredentialsError('Malformed', `${path} holds no PEM public key`, { path });
  return blocks.map((block, i) => {
    try {
      return createPublicKey(block);
    } catch (err) {
      throw new CredentialsError('Malformed', `${path}: public key ${i + 1} does not parse`, { path, cause: err });
    }
  });
}

/**
 * The ServiceAccount token keys of the data dir (see the file comment), generated when sa.key is
 * absent (then sa.pub is rewritten with the new public key alone: tokens of an earlier key stop
 * working). Of two processes starting at once, both end up with the same key. Throws
 * CredentialsError when sa.key or sa.pub does not parse (Malformed) or sa.key cannot sign tokens
 * (Unsupported): the operator fixes or deletes the files.
 */
export async function ensureServiceAccountKeys(options: { readonly dataDir: string; readonly logger?: Logger }): Promise<ServiceAccountKeys> {
  const logger = options.logger ?? silentLogger;
  const keyPath = join(options.dataDir, serviceAccountKeyFiles.privateKey);
  const pubPath = join(options.dataDir, serviceAccountKeyFiles.publicKeys);
  let keyPem = await readSecretFile(keyPath, logger);
  if (keyPem === undefined) {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    if (await createFileExclusive(keyPath, pem)) {
      await writeFileAtomic(pubPath, pemPublicKey(createPublicKey(privateKey)));
      logger.info({ path: keyPath, kid: keyId(privateKey) }, 'generated the ServiceAccount token signing key');
    }
    keyPem = (await readSecretFile(keyPath, logger)) ?? pem;
  }
  let signingKey: KeyObject;
  try {
    signingKey = createPrivateKey(keyPem);
  } catch (err) {
    throw new CredentialsError('Malformed', `${keyPath}: not a PEM private key; fix it or delete it (and ${serviceAccountKeyFiles.publicKeys}) to generate one`, {
      path: keyPath,
      cause: err,
    });
  }
  try {
    algorithmOf(signingKey);
  } catch (err) {
    throw new CredentialsError('Unsupported', `${keyPath}: ${(err as Error).message}`, { path: keyPath, cause: err });
  }
  const own = createPublicKey(signingKey);
  const pubText = await readFileIfExists(pubPath);
  const listed = pubText === undefined ? [] : parsePublicKeys(pubText, pubPath);
  if (pubText === undefined) await writeFileAtomic(pubPath, pemPublicKey(own));
  const seen = new Set<string>();
  const verifyingKeys = [own, ...listed].filter((key) => {
    const id = keyId(key);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  return { signingKey, verifyingKeys };
}
