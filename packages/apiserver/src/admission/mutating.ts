/**
 * Mutating admission: plugins that change a new object after defaulting and before validation,
 * each for the kinds it handles, in order — Kubernetes' mutating admission chain. The REST layer
 * runs the chain it is given without knowing any kind; the plugin decides what it handles.
 * Today: DefaultTolerationSeconds (pods).
 */
import type { KubeObject } from '@setpoint/api';
import type { ResourceDef } from '../registry/types.js';
import { addDefaultTolerations } from './tolerations.js';

/** One mutating admission plugin. */
export interface MutatingAdmission {
  /** Kubernetes' name of the plugin. */
  readonly name: string;
  /** Changes `obj`, a new object of `def` (a private copy), or leaves it when the plugin does not handle the kind. */
  admitCreate(def: ResourceDef, obj: KubeObject): void;
}

/** DefaultTolerationSeconds: pods tolerate not-ready and unreachable nodes for 300 s unless they say otherwise. */
export const defaultTolerationSeconds: MutatingAdmission = {
  name: 'DefaultTolerationSeconds',
  admitCreate(def, obj) {
    if (def.group === '' && def.resource === 'pods') addDefaultTolerations(obj);
  },
};

/** The chain a server runs, in order. */
export const MUTATING_ADMISSION: readonly MutatingAdmission[] = [defaultTolerationSeconds];
