// The API packages of Kubernetes 1.32 that `npm run gen:api` derives from: every group version a
// default kube-apiserver 1.32 serves (its GA and v2 versions; betas and alphas are off by default),
// with the Go package that defines it, and the apimachinery packages their messages use.

/** apimachinery's packages of shared messages (ObjectMeta, Time, Quantity, IntOrString, Unknown). */
export const SUPPORT_PACKAGES = [
  'k8s.io/apimachinery/pkg/runtime',
  'k8s.io/apimachinery/pkg/runtime/schema',
  'k8s.io/apimachinery/pkg/util/intstr',
  'k8s.io/apimachinery/pkg/api/resource',
  'k8s.io/apimachinery/pkg/apis/meta/v1',
];

/** Served group versions: apiVersion and the Go package of its types. */
export const GROUP_VERSIONS = [
  ['v1', 'k8s.io/api/core/v1'],
  ['admissionregistration.k8s.io/v1', 'k8s.io/api/admissionregistration/v1'],
  ['apiextensions.k8s.io/v1', 'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1'],
  ['apiregistration.k8s.io/v1', 'k8s.io/kube-aggregator/pkg/apis/apiregistration/v1'],
  ['apps/v1', 'k8s.io/api/apps/v1'],
  ['authentication.k8s.io/v1', 'k8s.io/api/authentication/v1'],
  ['authorization.k8s.io/v1', 'k8s.io/api/authorization/v1'],
  ['autoscaling/v1', 'k8s.io/api/autoscaling/v1'],
  ['autoscaling/v2', 'k8s.io/api/autoscaling/v2'],
  ['batch/v1', 'k8s.io/api/batch/v1'],
  ['certificates.k8s.io/v1', 'k8s.io/api/certificates/v1'],
  ['coordination.k8s.io/v1', 'k8s.io/api/coordination/v1'],
  ['discovery.k8s.io/v1', 'k8s.io/api/discovery/v1'],
  ['events.k8s.io/v1', 'k8s.io/api/events/v1'],
  ['flowcontrol.apiserver.k8s.io/v1', 'k8s.io/api/flowcontrol/v1'],
  ['networking.k8s.io/v1', 'k8s.io/api/networking/v1'],
  ['node.k8s.io/v1', 'k8s.io/api/node/v1'],
  ['policy/v1', 'k8s.io/api/policy/v1'],
  ['rbac.authorization.k8s.io/v1', 'k8s.io/api/rbac/v1'],
  ['scheduling.k8s.io/v1', 'k8s.io/api/scheduling/v1'],
  ['storage.k8s.io/v1', 'k8s.io/api/storage/v1'],
].map(([apiVersion, goPackage]) => ({ apiVersion, goPackage }));
