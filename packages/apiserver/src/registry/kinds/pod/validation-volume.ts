/**
 * Validation of pod volumes as Kubernetes' ValidateVolumes does it: a unique DNS-label name and
 * exactly one source per volume, with the source's own rules (secret, configMap, downwardAPI,
 * projected, hostPath, persistentVolumeClaim, emptyDir and nfs in full; the required fields of the
 * others). Field paths keep Kubernetes' quirks ("cephFS", "downwarAPI", "persistentDisk").
 */
import { FieldError, QuantityError, nameIsDNSSubdomain } from '@setpoint/api';
import { arrayAt, child, index, isObject, numberAt, objectAt, objectsAt, stringAt, type JsonObject } from '../../validation/json-fields.js';
import { readQuantity, validateDNS1123Label, validateLocalDescendingPath } from '../../validation/field-rules.js';
import { VOLUME_FIELD_PATHS, validateObjectFieldSelector, validateResourceFieldSelector } from './validation-container.js';

const FILE_MODE_ERROR = 'must be a number between 0 and 0777 (octal), both inclusive';
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

/**
 * The volume sources in the order Kubernetes checks them, each with the field name it uses in the
 * "more than 1 volume type" error (Kubernetes misspells two) and the fields it requires.
 */
const SOURCES: ReadonlyArray<{ name: string; errorName?: string; required?: readonly string[]; requiredList?: readonly string[] }> = [
  { name: 'emptyDir' },
  { name: 'hostPath' },
  { name: 'gitRepo' },
  { name: 'gcePersistentDisk', required: ['pdName'] },
  { name: 'awsElasticBlockStore', required: ['volumeID'] },
  { name: 'secret' },
  { name: 'nfs' },
  { name: 'iscsi', required: ['targetPortal', 'iqn'] },
  { name: 'glusterfs', required: ['endpoints', 'path'] },
  { name: 'flocker' },
  { name: 'persistentVolumeClaim' },
  { name: 'rbd', requiredList: ['monitors'], required: ['image'] },
  { name: 'cinder', required: ['volumeID'] },
  { name: 'cephfs', errorName: 'cephFS', requiredList: ['monitors'] },
  { name: 'quobyte' },
  { name: 'downwardAPI', errorName: 'downwarAPI' },
  { name: 'fc' },
  { name: 'flexVolume', required: ['driver'] },
  { name: 'configMap' },
  { name: 'azureFile', required: ['secretName', 'shareName'] },
  { name: 'vsphereVolume', required: ['volumePath'] },
  { name: 'photonPersistentDisk', required: ['pdID'] },
  { name: 'portworxVolume', required: ['volumeID'] },
  { name: 'azureDisk', required: ['diskName', 'diskURI'] },
  { name: 'storageos' },
  { name: 'projected' },
  { name: 'scaleIO', required: ['gateway', 'system'] },
  { name: 'csi', required: ['driver'] },
  { name: 'ephemeral' },
  { name: 'image' },
];

function validateFileMode(obj: unknown, field: string, path: string): FieldError[] {
  const mode = numberAt(obj, field);
  return mode !== undefined && (mode < 0 || mode > 0o777) ? [FieldError.invalid(child(path, field), mode, FILE_MODE_ERROR)] : [];
}

/** ValidateLocalNonReservedPath: relative, no '..' element, not starting with '..'. */
function validateLocalNonReservedPath(target: string, path: string): FieldError[] {
  const errs = validateLocalDescendingPath(target, path);
  if (target.startsWith('..') && !target.startsWith('../')) errs.push(FieldError.invalid(path, target, "must not start with '..'"));
  return errs;
}

/** validateKeyToPath. */
function validateKeyToPath(item: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (stringAt(item, 'key') === '') errs.push(FieldError.required(child(path, 'key')));
  if (stringAt(item, 'path') === '') errs.push(FieldError.required(child(path, 'path')));
  errs.push(...validateLocalNonReservedPath(stringAt(item, 'path'), child(path, 'path')));
  errs.push(...validateFileMode(item, 'mode', path));
  return errs;
}

/** validateDownwardAPIVolumeFile (Kubernetes reports its errors on `path`, the source, not the item). */
function validateDownwardAPIFile(file: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const filePath = stringAt(file, 'path');
  if (filePath === '') errs.push(FieldError.required(child(path, 'path')));
  errs.push(...validateLocalNonReservedPath(filePath, child(path, 'path')));
  const fieldRef = objectAt(file, 'fieldRef');
  const resourceFieldRef = objectAt(file, 'resourceFieldRef');
  if (fieldRef !== undefined) {
    errs.push(...validateObjectFieldSelector(fieldRef, VOLUME_FIELD_PATHS, child(path, 'fieldRef')));
    if (resourceFieldRef !== undefined) errs.push(FieldError.invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (resourceFieldRef !== undefined) {
    errs.push(...validateResourceFieldSelector(resourceFieldRef, child(path, 'resourceFieldRef'), true));
  } else {
    errs.push(FieldError.required(path, 'one of fieldRef and resourceFieldRef is required'));
  }
  errs.push(...validateFileMode(file, 'mode', path));
  return errs;
}

function validateProjected(projected: JsonObject, path: string): FieldError[] {
  const errs = validateFileMode(projected, 'defaultMode', path);
  const paths = new Set<string>();
  const claimPath = (p: string, value: unknown) => {
    if (p === '') return;
    if (paths.has(p)) errs.push(FieldError.invalid(path, value, 'conflicting duplicate paths'));
    else paths.add(p);
  };
  for (const [source, i] of objectsAt(projected, 'sources')) {
    const srcPath = index(child(path, 'sources'), i);
    let count = 0;
    for (const kind of ['secret', 'configMap']) {
      const keys = objectAt(source, kind);
      if (keys === undefined) continue;
      count++;
      const p = child(srcPath, kind);
      if (stringAt(keys, 'name') === '') errs.push(FieldError.required(child(p, 'name')));
      for (const [item, j] of objectsAt(keys, 'items')) {
        errs.push(...validateKeyToPath(item, index(child(p, 'items'), j)));
        claimPath(stringAt(item, 'path'), stringAt(keys, 'name'));
      }
    }
    const downwardAPI = objectAt(source, 'downwardAPI');
    if (downwardAPI !== undefined) {
      count++;
      for (const [file] of objectsAt(downwardAPI, 'items')) {
        errs.push(...validateDownwardAPIFile(file, child(srcPath, 'downwardAPI')));
        claimPath(stringAt(file, 'path'), stringAt(file, 'path'));
      }
    }
    const token = objectAt(source, 'serviceAccountToken');
    if (token !== undefined) {
      count++;
      const p = child(srcPath, 'serviceAccountToken');
      const expiration = numberAt(token, 'expirationSeconds') ?? 0;
      if (expiration < 600) errs.push(FieldError.invalid(child(p, 'expirationSeconds'), expiration, 'may not specify a duration less than 10 minutes'));
      if (expiration > 2 ** 32) errs.push(FieldError.invalid(child(p, 'expirationSeconds'), expiration, 'may not specify a duration larger than 2^32 seconds'));
      const tokenPath = stringAt(token, 'path');
      if (tokenPath === '') errs.push(FieldError.required(child(path, 'path')));
      else errs.push(...validateLocalNonReservedPath(tokenPath, child(path, 'path')));
    }
    const bundle = objectAt(source, 'clusterTrustBundle');
    if (bundle !== undefined) {
      count++;
      const p = child(srcPath, 'clusterTrustBundle');
      if (stringAt(bundle, 'path') === '') errs.push(FieldError.required(child(p, 'path')));
      errs.push(...validateLocalNonReservedPath(stringAt(bundle, 'path'), child(p, 'path')));
      claimPath(stringAt(bundle, 'path'), stringAt(bundle, 'path'));
    }
    if (objectAt(source, 'podCertificate') !== undefined) count++;
    if (count > 1) errs.push(FieldError.forbidden(srcPath, 'may not specify more than 1 volume type per source'));
  }
  return errs;
}

/** The rules of one volume source (`path` is the source's field path). */
function validateSource(name: string, source: JsonObject, path: string, required: readonly string[], requiredList: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  for (const field of requiredList) if (arrayAt(source, field).length === 0) errs.push(FieldError.required(child(path, field)));
  for (const field of required) if (stringAt(source, field) === '') errs.push(FieldError.required(child(path, field)));
  switch (name) {
    case 'emptyDir': {
      const limit = source['sizeLimit'];
      if (limit !== undefined && limit !== null) {
        const q = readQuantity(limit);
        if (q instanceof QuantityError || q.nanos < 0n) errs.push(FieldError.forbidden(child(path, 'sizeLimit'), 'SizeLimit field must be a valid resource quantity'));
      }
      break;
    }
    case 'hostPath': {
      const hostPath = stringAt(source, 'path');
      if (hostPath === '') return [FieldError.required(child(path, 'path'))];
      if (hostPath.split('/').includes('..')) errs.push(FieldError.invalid(child(path, 'path'), hostPath, "must not contain '..'"));
      const type = source['type'];
      if (typeof type === 'string' && !HOST_PATH_TYPES.includes(type)) errs.push(FieldError.notSupported(child(path, 'type'), type, HOST_PATH_TYPES));
      break;
    }
    case 'gitRepo':
      if (stringAt(source, 'repository') === '') errs.push(FieldError.required(child(path, 'repository')));
      errs.push(...validateLocalDescendingPath(stringAt(source, 'directory'), child(path, 'directory')));
      break;
    case 'secret':
    case 'configMap': {
      const nameField = name === 'secret' ? 'secretName' : 'name';
      if (stringAt(source, nameField) === '') errs.push(FieldError.required(child(path, nameField)));
      errs.push(...validateFileMode(source, 'defaultMode', path));
      for (const [item, i] of objectsAt(source, 'items')) errs.push(...validateKeyToPath(item, index(child(path, 'items'), i)));
      break;
    }
    case 'nfs': {
      if (stringAt(source, 'server') === '') errs.push(FieldError.required(child(path, 'server')));
      const nfsPath = stringAt(source, 'path');
      if (nfsPath === '') errs.push(FieldError.required(child(path, 'path')));
      if (!nfsPath.startsWith('/')) errs.push(FieldError.invalid(child(path, 'path'), nfsPath, 'must be an absolute path'));
      break;
    }
    case 'persistentVolumeClaim':
      if (stringAt(source, 'claimName') === '') errs.push(FieldError.required(child(path, 'claimName')));
      break;
    case 'downwardAPI':
      errs.push(...validateFileMode(source, 'defaultMode', path));
      for (const [file] of objectsAt(source, 'items')) errs.push(...validateDownwardAPIFile(file, path));
      break;
    case 'projected':
      errs.push(...validateProjected(source, path));
      break;
    case 'quobyte':
      if (stringAt(source, 'registry') === '') errs.push(FieldError.required(child(path, 'registry'), 'must be a host:port pair or multiple pairs separated by commas'));
      if (stringAt(source, 'volume') === '') errs.push(FieldError.required(child(path, 'volume')));
      break;
    case 'flocker': {
      const datasetName = stringAt(source, 'datasetName');
      const datasetUUID = stringAt(source, 'datasetUUID');
      if (datasetName === '' && datasetUUID === '') errs.push(FieldError.required(path, 'one of datasetName and datasetUUID is required'));
      if (datasetName !== '' && datasetUUID !== '') errs.push(FieldError.invalid(path, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
      if (datasetName.includes('/')) errs.push(FieldError.invalid(child(path, 'datasetName'), datasetName, "must not contain '/'"));
      break;
    }
  }
  return errs;
}

/**
 * ValidateVolumes: each volume's source rules, then its name (required, a DNS-1123 label, unique).
 * Returns the errors and the valid volumes by name (containers may mount only those). With the pod
 * name (pods, not templates), also the names of the PVCs generic ephemeral volumes will create.
 */
export function validateVolumes(spec: JsonObject, path: string, podName: string): { errs: FieldError[]; volumes: Map<string, JsonObject> } {
  const errs: FieldError[] = [];
  const volumes = new Map<string, JsonObject>();
  const createdClaims = new Set<string>();
  if (podName !== '') {
    for (const [volume] of objectsAt(spec, 'volumes')) if (isObject(volume['ephemeral'])) createdClaims.add(`${podName}-${stringAt(volume, 'name')}`);
  }
  for (const [volume, i] of objectsAt(spec, 'volumes')) {
    const p = index(path, i);
    const name = stringAt(volume, 'name');
    const el: FieldError[] = [];
    let count = 0;
    for (const source of SOURCES) {
      const value = objectAt(volume, source.name);
      if (value === undefined) continue;
      if (count > 0) {
        el.push(FieldError.forbidden(child(p, source.errorName ?? source.name), 'may not specify more than 1 volume type'));
        continue;
      }
      count++;
      const sourcePath = child(p, source.name === 'gcePersistentDisk' ? 'persistentDisk' : source.name);
      el.push(...validateSource(source.name, value, sourcePath, source.required ?? [], source.requiredList ?? []));
      if (source.name === 'ephemeral' && podName !== '' && name !== '') {
        const claimName = `${podName}-${name}`;
        for (const msg of nameIsDNSSubdomain(claimName, false)) el.push(FieldError.invalid(child(p, 'name'), name, `PVC name ${JSON.stringify(claimName)}: ${msg}`));
      }
    }
    if (count === 0) el.push(FieldError.required(p, 'must specify a volume type'));
    if (name === '') el.push(FieldError.required(child(p, 'name')));
    else el.push(...validateDNS1123Label(name, child(p, 'name')));
    if (volumes.has(name)) el.push(FieldError.duplicate(child(p, 'name'), name));
    if (el.length === 0) volumes.set(name, volume);
    else errs.push(...el);
    const claimName = stringAt(objectAt(volume, 'persistentVolumeClaim'), 'claimName');
    if (claimName !== '' && createdClaims.has(claimName)) {
      errs.push(FieldError.invalid(child(child(p, 'persistentVolumeClaim'), 'claimName'), claimName, 'must not reference a PVC that gets created for an ephemeral volume'));
    }
  }
  return { errs, volumes };
}
