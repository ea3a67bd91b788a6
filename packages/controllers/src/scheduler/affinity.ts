/**
 * The matching rules placement constraints are made of, as Kubernetes has them
 * (component-helpers' nodeaffinity, core/v1 helper's tolerations, the scheduler's AffinityTerm):
 *
 * - A node selector term is the AND of its matchExpressions (on node labels: In, NotIn, Exists,
 *   DoesNotExist, Gt, Lt) and matchFields (metadata.name, In or NotIn); a term with neither
 *   matches no node, and a term with an invalid requirement matches no node. Terms are ORed.
 * - A toleration tolerates a taint when its effect is empty or equal, its key is empty or equal,
 *   and its operator is Exists, or Equal (the default) with an equal value.
 * - A pod affinity term selects pods by labels in a set of namespaces: the ones it lists, those
 *   its namespaceSelector matches (`{}` is every namespace), or, with neither, the pod's own.
 */
import {
  labelRequirement,
  labelSelectorAsSelector,
  LabelsSelector,
  type LabelOperator,
  type Labels,
  type NodeSelectorRequirement,
  type NodeSelectorTerm,
  type Pod,
  type PodAffinityTerm,
  type Taint,
  type Toleration,
} from '@setpoint/api';

/** A node selector term, compiled: undefined when it matches no node (empty or invalid). */
export interface CompiledTerm {
  readonly labels: LabelsSelector;
  /** Node names the term requires (In), or undefined. */
  readonly namesIn: ReadonlySet<string> | undefined;
  /** Node names the term excludes (NotIn). */
  readonly namesNotIn: ReadonlySet<string>;
}

const operators: Readonly<Record<string, LabelOperator>> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!', Gt: 'gt', Lt: 'lt' };

/** Compiles a node selector term (see the file comment); undefined when it can match no node. */
export function compileNodeSelectorTerm(term: Readonly<NodeSelectorTerm>): CompiledTerm | undefined {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return undefined;
  try {
    const requirements = expressions.map((r: Readonly<NodeSelectorRequirement>) => {
      const op = operators[r.operator];
      if (op === undefined) throw new Error(`unknown operator ${r.operator}`);
      if ((op === 'gt' || op === 'lt') && (r.values ?? []).length !== 1) throw new Error(`${r.operator} needs one value`);
      return labelRequirement(r.key, op, r.values ?? []);
    });
    let namesIn: Set<string> | undefined;
    const namesNotIn = new Set<string>();
    for (const f of fields) {
      if (f.key !== 'metadata.name') return undefined;
      if (f.operator === 'In') {
        const values = new Set(f.values ?? []);
        namesIn = namesIn === undefined ? values : new Set([...namesIn].filter((v) => values.has(v)));
      } else if (f.operator === 'NotIn') {
        for (const v of f.values ?? []) namesNotIn.add(v);
      } else {
        return undefined;
      }
    }
    return { labels: LabelsSelector.everything().add(...requirements), namesIn, namesNotIn };
  } catch {
    return undefined;
  }
}

/** Whether a compiled term matches a node's name and labels. */
export function termMatches(term: CompiledTerm | undefined, name: string, labels: Labels): boolean {
  if (term === undefined) return false;
  if (term.namesIn !== undefined && !term.namesIn.has(name)) return false;
  if (term.namesNotIn.has(name)) return false;
  return term.labels.matches(labels);
}

/**
 * A pod's required node constraints, compiled: spec.nodeSelector (every label equal) AND
 * requiredDuringSchedulingIgnoredDuringExecution (any term). `terms` is undefined without one.
 */
export interface RequiredNodeAffinity {
  readonly nodeSelector: ReadonlyArray<readonly [string, string]>;
  readonly terms: ReadonlyArray<CompiledTerm | undefined> | undefined;
}

/** Compiles a pod's required node constraints (invalid terms match no node). */
export function requiredNodeAffinityOf(pod: Readonly<Pod>): RequiredNodeAffinity {
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return {
    nodeSelector: Object.entries(pod.spec?.nodeSelector ?? {}),
    terms: required === undefined ? undefined : (required.nodeSelectorTerms ?? []).map(compileNodeSelectorTerm),
  };
}

/** Whether a node satisfies a pod's nodeSelector and required node affinity. */
export function matchesRequiredNodeAffinity(required: RequiredNodeAffinity, name: string, labels: Labels): boolean {
  for (const [k, v] of required.nodeSelector) if (labels[k] !== v) return false;
  if (required.terms === undefined) return true;
  for (const term of required.terms) if (termMatches(term, name, labels)) return true;
  return false;
}

/** A preferred node term, compiled with its weight. */
export interface WeightedTerm {
  readonly weight: number;
  readonly term: CompiledTerm | undefined;
}

/** Compiles a pod's preferred node affinity terms (weight 0 dropped; an empty or invalid preference matches no node). */
export function preferredNodeAffinityOf(pod: Readonly<Pod>): readonly WeightedTerm[] {
  const preferred = pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
  return preferred.filter((p) => p.weight !== 0).map((p) => ({ weight: p.weight, term: compileNodeSelectorTerm(p.preference) }));
}

/** Whether `toleration` tolerates `taint` (see the file comment). */
export function toleratesTaint(toleration: Readonly<Toleration>, taint: Readonly<Taint>): boolean {
  if (toleration.effect !== undefined && toleration.effect !== '' && toleration.effect !== taint.effect) return false;
  if (toleration.key !== undefined && toleration.key !== '' && toleration.key !== taint.key) return false;
  switch (toleration.operator) {
    case undefined:
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** Whether any toleration tolerates `taint`. */
export function toleratedBy(tolerations: ReadonlyArray<Readonly<Toleration>>, taint: Readonly<Taint>): boolean {
  for (const t of tolerations) if (toleratesTaint(t, taint)) return true;
  return false;
}

/** The first taint with an effect `effects` accepts that no toleration tolerates, or undefined. */
export function findUntoleratedTaint(
  taints: ReadonlyArray<Readonly<Taint>>,
  tolerations: ReadonlyArray<Readonly<Toleration>>,
  effects: (effect: string) => boolean,
): Readonly<Taint> | undefined {
  for (const taint of taints) if (effects(taint.effect) && !toleratedBy(tolerations, taint)) return taint;
  return undefined;
}

/** A pod affinity term, compiled (the scheduler's AffinityTerm). */
export interface AffinityTerm {
  readonly selector: LabelsSelector;
  readonly namespaces: ReadonlySet<string>;
  readonly namespaceSelector: LabelsSelector;
  readonly topologyKey: string;
}

/**
 * Compiles a pod affinity term of `pod`: matchLabelKeys and mismatchLabelKeys add `key in (v)`
 * and `key notin (v)` for the pod's own value of each key it has. An invalid selector selects
 * nothing.
 */
export function compileAffinityTerm(pod: Readonly<Pod>, term: Readonly<PodAffinityTerm>): AffinityTerm {
  const ownLabels = pod.metadata.labels ?? {};
  let selector: LabelsSelector;
  let namespaceSelector: LabelsSelector;
  try {
    selector = labelSelectorAsSelector(term.labelSelector);
    const extra = [
      ...(term.matchLabelKeys ?? []).filter((k) => Object.hasOwn(ownLabels, k)).map((k) => labelRequirement(k, 'in', [ownLabels[k]!])),
      ...(term.mismatchLabelKeys ?? []).filter((k) => Object.hasOwn(ownLabels, k)).map((k) => labelRequirement(k, 'notin', [ownLabels[k]!])),
    ];
    if (extra.length > 0) selector = selector.add(...extra);
  } catch {
    selector = LabelsSelector.nothing();
  }
  try {
    namespaceSelector = labelSelectorAsSelector(term.namespaceSelector);
  } catch {
    namespaceSelector = LabelsSelector.nothing();
  }
  const listed = term.namespaces ?? [];
  const namespaces = new Set(listed.length === 0 && term.namespaceSelector === undefined ? [pod.metadata.namespace ?? 'default'] : listed);
  return { selector, namespaces, namespaceSelector, topologyKey: term.topologyKey };
}

/** Whether `term` selects a pod with these namespace and labels (`namespaceLabels`: its namespace's). */
export function affinityTermMatches(term: AffinityTerm, namespace: string, labels: Labels, namespaceLabels: Labels | undefined): boolean {
  const inNamespace = term.namespaces.has(namespace) || (!term.namespaceSelector.matchesNothing() && term.namespaceSelector.matches(namespaceLabels ?? {}));
  return inNamespace && term.selector.matches(labels);
}
