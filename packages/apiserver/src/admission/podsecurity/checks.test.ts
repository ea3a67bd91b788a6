/**
 * The Pod Security checks, table-driven: for each baseline and restricted check a violating pod
 * (with Kubernetes' exact `reason (detail)`) and a passing one; versions and overrides.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluatePod, violationsText } from './evaluator.js';
import { LATEST, parseVersion, type Level, type LevelVersion } from './levels.js';
import type { Json, PodLike } from './podspec.js';

/** A pod that passes restricted: every later case changes one thing. */
function restrictedPod(): { metadata: Json; spec: Json } {
  return {
    metadata: { name: 'p' },
    spec: {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'c', image: 'i', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
    },
  };
}

type Edit = (pod: { metadata: Json; spec: Json }) => void;
const container = (pod: { spec: Json }, i = 0) => (pod.spec['containers'] as Json[])[i]!;
const sc = (pod: { spec: Json }, i = 0) => container(pod, i)['securityContext'] as Json;
const podSc = (pod: { spec: Json }) => pod.spec['securityContext'] as Json;

const at = (level: Level, version = 'latest'): LevelVersion => ({ level, version: parseVersion(version) });
const text = (lv: LevelVersion, pod: PodLike) => violationsText(evaluatePod(lv, pod));

interface Case {
  readonly name: string;
  readonly level: Level;
  readonly bad: Edit;
  readonly want: string;
  /** An edit of the same field that passes at `level`. */
  readonly good: Edit;
}

const cases: Case[] = [
  {
    name: 'hostProcess',
    level: 'baseline',
    bad: (p) => {
      podSc(p)['windowsOptions'] = { hostProcess: true };
      sc(p)['windowsOptions'] = { hostProcess: true };
    },
    want: 'hostProcess (pod and container "c" must not set securityContext.windowsOptions.hostProcess=true)',
    good: (p) => (sc(p)['windowsOptions'] = { hostProcess: false }),
  },
  {
    name: 'host namespaces',
    level: 'baseline',
    bad: (p) => Object.assign(p.spec, { hostNetwork: true, hostPID: true, hostIPC: true }),
    want: 'host namespaces (hostNetwork=true, hostPID=true, hostIPC=true)',
    good: (p) => Object.assign(p.spec, { hostNetwork: false, hostPID: false }),
  },
  {
    name: 'privileged',
    level: 'baseline',
    bad: (p) => (sc(p)['privileged'] = true),
    want: 'privileged (container "c" must not set securityContext.privileged=true)',
    good: (p) => (sc(p)['privileged'] = false),
  },
  {
    name: 'capabilities beyond the baseline set',
    level: 'baseline',
    bad: (p) => (sc(p)['capabilities'] = { add: ['SYS_ADMIN', 'NET_RAW', 'CHOWN'] }),
    want: 'non-default capabilities (container "c" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add)',
    good: (p) => (sc(p)['capabilities'] = { add: ['CHOWN', 'KILL', 'NET_BIND_SERVICE'] }),
  },
  {
    name: 'hostPath volumes',
    level: 'baseline',
    bad: (p) => (p.spec['volumes'] = [{ name: 'root', hostPath: { path: '/' } }, { name: 'e', emptyDir: {} }, { name: 'etc', hostPath: { path: '/etc' } }]),
    want: 'hostPath volumes (volumes "root", "etc")',
    good: (p) => (p.spec['volumes'] = [{ name: 'e', emptyDir: {} }]),
  },
  {
    name: 'hostPorts',
    level: 'baseline',
    bad: (p) => (container(p)['ports'] = [{ containerPort: 80, hostPort: 8080 }, { containerPort: 81, hostPort: 443 }]),
    want: 'hostPort (container "c" uses hostPorts 443, 8080)',
    good: (p) => (container(p)['ports'] = [{ containerPort: 80 }, { containerPort: 81, hostPort: 0 }]),
  },
  {
    name: 'AppArmor (field and annotation)',
    level: 'baseline',
    bad: (p) => {
      sc(p)['appArmorProfile'] = { type: 'Unconfined' };
      p.metadata['annotations'] = { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined' };
    },
    want: 'forbidden AppArmor profiles (container "c" and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/c=\\"unconfined\\"")',
    good: (p) => {
      sc(p)['appArmorProfile'] = { type: 'Localhost', localhostProfile: 'x' };
      p.metadata['annotations'] = { 'container.apparmor.security.beta.kubernetes.io/c': 'runtime/default' };
    },
  },
  {
    name: 'SELinux',
    level: 'baseline',
    bad: (p) => {
      podSc(p)['seLinuxOptions'] = { type: 'spc_t' };
      sc(p)['seLinuxOptions'] = { user: 'root', role: 'sysadm_r' };
    },
    want: 'seLinuxOptions (pod and container "c" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set)',
    good: (p) => (sc(p)['seLinuxOptions'] = { type: 'container_t', level: 's0:c123,c456' }),
  },
  {
    name: '/proc mount type',
    level: 'baseline',
    bad: (p) => (sc(p)['procMount'] = 'Unmasked'),
    want: 'procMount (container "c" must not set securityContext.procMount to "Unmasked")',
    good: (p) => (sc(p)['procMount'] = 'Default'),
  },
  {
    name: 'seccomp Unconfined',
    level: 'baseline',
    bad: (p) => (sc(p)['seccompProfile'] = { type: 'Unconfined' }),
    want: 'seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined")',
    good: (p) => (sc(p)['seccompProfile'] = { type: 'Localhost', localhostProfile: 'p.json' }),
  },
  {
    name: 'sysctls outside the safe set',
    level: 'baseline',
    bad: (p) => (podSc(p)['sysctls'] = [{ name: 'kernel.msgmax', value: '1' }, { name: 'net.ipv4.tcp_syncookies', value: '1' }, { name: 'vm.swappiness', value: '0' }]),
    want: 'forbidden sysctls (kernel.msgmax, vm.swappiness)',
    good: (p) => (podSc(p)['sysctls'] = [{ name: 'net.ipv4.tcp_keepalive_time', value: '60' }, { name: 'net.ipv4.tcp_rmem', value: '4096 87380 6291456' }]),
  },
  {
    name: 'restricted volume types',
    level: 'restricted',
    bad: (p) => (p.spec['volumes'] = [{ name: 'n', nfs: { server: 's', path: '/' } }, { name: 'g', gitRepo: { repository: 'r' } }]),
    want: 'restricted volume types (volumes "n", "g" use restricted volume types "gitRepo", "nfs")',
    good: (p) => (p.spec['volumes'] = [{ name: 'a', configMap: { name: 'x' } }, { name: 'b', secret: { secretName: 's' } }, { name: 'c', persistentVolumeClaim: { claimName: 'c' } }, { name: 'd', projected: { sources: [] } }]),
  },
  {
    name: 'privilege escalation',
    level: 'restricted',
    bad: (p) => delete sc(p)['allowPrivilegeEscalation'],
    want: 'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false)',
    good: (p) => (sc(p)['allowPrivilegeEscalation'] = false),
  },
  {
    name: 'runAsNonRoot unset',
    level: 'restricted',
    bad: (p) => delete podSc(p)['runAsNonRoot'],
    want: 'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)',
    good: (p) => {
      delete podSc(p)['runAsNonRoot'];
      sc(p)['runAsNonRoot'] = true;
    },
  },
  {
    name: 'runAsNonRoot false',
    level: 'restricted',
    bad: (p) => (sc(p)['runAsNonRoot'] = false),
    want: 'runAsNonRoot != true (container "c" must not set securityContext.runAsNonRoot=false)',
    good: (p) => (sc(p)['runAsNonRoot'] = true),
  },
  {
    name: 'runAsUser 0',
    level: 'restricted',
    bad: (p) => {
      podSc(p)['runAsUser'] = 0;
      sc(p)['runAsUser'] = 0;
    },
    want: 'runAsUser=0 (pod and container "c" must not set runAsUser=0)',
    good: (p) => (podSc(p)['runAsUser'] = 1000),
  },
  {
    name: 'seccomp unset',
    level: 'restricted',
    bad: (p) => delete podSc(p)['seccompProfile'],
    want: 'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    good: (p) => {
      delete podSc(p)['seccompProfile'];
      sc(p)['seccompProfile'] = { type: 'RuntimeDefault' };
    },
  },
  {
    name: 'capabilities: drop ALL, add only NET_BIND_SERVICE',
    level: 'restricted',
    bad: (p) => (sc(p)['capabilities'] = { drop: ['NET_RAW'], add: ['CHOWN'] }),
    want: 'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]; container "c" must not include "CHOWN" in securityContext.capabilities.add)',
    good: (p) => (sc(p)['capabilities'] = { drop: ['ALL'], add: ['NET_BIND_SERVICE'] }),
  },
];

describe('Pod Security checks', () => {
  it('the reference pod passes restricted, and so baseline and privileged', () => {
    for (const level of ['privileged', 'baseline', 'restricted'] as const) assert.deepEqual(evaluatePod(at(level), restrictedPod()), []);
  });
  it('a bare pod passes baseline and fails every restricted check that needs a setting', () => {
    const pod = { metadata: {}, spec: { containers: [{ name: 'c', image: 'i' }] } };
    assert.equal(text(at('baseline'), pod), '');
    assert.equal(
      text(at('restricted'), pod),
      'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
        'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
        'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
        'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  });
  for (const c of cases) {
    it(`${c.level}: ${c.name}`, () => {
      const bad = restrictedPod();
      c.bad(bad);
      assert.equal(text(at(c.level), bad), c.want);
      if (c.level === 'baseline') {
        // A baseline violation is one at restricted too (hostPath as a restricted volume type).
        assert.notEqual(text(at('restricted'), bad), '');
      } else {
        assert.equal(text(at('baseline'), bad), '', 'restricted-only settings pass baseline');
      }
      assert.equal(text(at('privileged'), bad), '');
      const good = restrictedPod();
      c.good(good);
      assert.equal(text(at(c.level), good), '', `the passing edit passes ${c.level}`);
    });
  }
  it('restricted reports hostPath as a restricted volume type, not as baseline hostPath volumes', () => {
    const pod = restrictedPod();
    pod.spec['volumes'] = [{ name: 'v', hostPath: { path: '/' } }];
    assert.equal(text(at('restricted'), pod), 'restricted volume types (volume "v" uses restricted volume type "hostPath")');
    assert.equal(text(at('baseline'), pod), 'hostPath volumes (volume "v")');
  });
  it('baseline violations come in the order of their check IDs', () => {
    const pod = { metadata: {}, spec: { hostNetwork: true, volumes: [{ name: 'v', hostPath: { path: '/' } }], containers: [{ name: 'c', image: 'i', securityContext: { privileged: true } }] } };
    assert.equal(text(at('baseline'), pod), 'host namespaces (hostNetwork=true), hostPath volumes (volume "v"), privileged (container "c" must not set securityContext.privileged=true)');
  });
  it('plural forms name every container, init and ephemeral ones too', () => {
    const pod = {
      metadata: {},
      spec: {
        initContainers: [{ name: 'init', securityContext: { privileged: true } }],
        containers: [{ name: 'a', securityContext: { privileged: true } }, { name: 'b' }],
        ephemeralContainers: [{ name: 'debug', securityContext: { privileged: true } }],
      },
    };
    assert.equal(text(at('baseline'), pod), 'privileged (containers "init", "a", "debug" must not set securityContext.privileged=true)');
  });
  describe('versions', () => {
    it('runAsUser=0 is a violation from v1.23 on', () => {
      const pod = restrictedPod();
      podSc(pod)['runAsUser'] = 0;
      assert.equal(text(at('restricted', 'v1.22'), pod), '');
      assert.equal(text(at('restricted', 'v1.23'), pod), 'runAsUser=0 (pod must not set runAsUser=0)');
    });
    it('before v1.22 restricted checks capabilities as baseline does (no drop ALL)', () => {
      const pod = restrictedPod();
      sc(pod)['capabilities'] = { add: ['SYS_ADMIN'] };
      assert.equal(text(at('restricted', 'v1.21'), pod), 'non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)');
      assert.equal(text(at('restricted', 'v1.22'), pod), 'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]; container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)');
    });
    it('the safe sysctls grew at v1.27, v1.29 and v1.32', () => {
      const pod = restrictedPod();
      podSc(pod)['sysctls'] = [{ name: 'net.ipv4.ip_local_reserved_ports' }, { name: 'net.ipv4.tcp_fin_timeout' }, { name: 'net.ipv4.tcp_wmem' }];
      assert.equal(text(at('baseline', 'v1.26'), pod), 'forbidden sysctls (net.ipv4.ip_local_reserved_ports, net.ipv4.tcp_fin_timeout, net.ipv4.tcp_wmem)');
      assert.equal(text(at('baseline', 'v1.28'), pod), 'forbidden sysctls (net.ipv4.tcp_fin_timeout, net.ipv4.tcp_wmem)');
      assert.equal(text(at('baseline', 'v1.31'), pod), 'forbidden sysctls (net.ipv4.tcp_wmem)');
      assert.equal(text(at('baseline', 'v1.32'), pod), '');
      assert.equal(text({ level: 'baseline', version: LATEST }, pod), '');
    });
    it('the SELinux type container_engine_t is allowed from v1.31 on', () => {
      const pod = restrictedPod();
      podSc(pod)['seLinuxOptions'] = { type: 'container_engine_t' };
      assert.equal(text(at('baseline', 'v1.30'), pod), 'seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "container_engine_t")');
      assert.equal(text(at('baseline', 'v1.31'), pod), '');
    });
    it('before v1.19 seccomp is checked in the annotations', () => {
      const pod = { metadata: { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } }, spec: { containers: [{ name: 'c', securityContext: { seccompProfile: { type: 'Unconfined' } } }] } };
      assert.equal(text(at('baseline', 'v1.18'), pod), 'seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")');
      assert.equal(text(at('baseline', 'v1.19'), pod), 'seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined")');
    });
    it('from v1.25 Windows pods skip the Linux-only restricted checks', () => {
      const pod = { metadata: {}, spec: { os: { name: 'windows' }, securityContext: { runAsNonRoot: true }, containers: [{ name: 'c' }] } };
      assert.equal(text(at('restricted', 'v1.25'), pod), '');
      assert.match(text(at('restricted', 'v1.24'), pod), /^allowPrivilegeEscalation != false/);
    });
    it('a version newer than any check is evaluated as latest', () => {
      const pod = restrictedPod();
      sc(pod)['privileged'] = true;
      assert.equal(text(at('baseline', 'v1.99'), pod), text(at('baseline'), pod));
    });
  });
  it('fields of the wrong type read as unset and never throw', () => {
    const pod = { metadata: { annotations: 'x' }, spec: { containers: [null, 7, { name: 'c', securityContext: 'x', ports: 'x' }], volumes: {}, securityContext: [] } };
    assert.doesNotThrow(() => evaluatePod(at('restricted'), pod as unknown as PodLike));
  });
});

describe('root is the host root (Setpoint: pods run as host processes)', () => {
  const rootPod = { metadata: {}, spec: { securityContext: { runAsUser: 0 }, containers: [{ name: 'c', image: 'i' }] } };
  it('baseline refuses runAsUser 0 only when rootIsHostRoot is set; privileged never does', () => {
    const baseline = { level: 'baseline', version: LATEST } as const;
    assert.deepEqual(evaluatePod(baseline, rootPod), [], "Kubernetes' baseline admits root");
    assert.equal(violationsText(evaluatePod(baseline, rootPod, { rootIsHostRoot: true })), 'runAsUser=0 (pod must not set runAsUser=0)');
    assert.deepEqual(evaluatePod({ level: 'privileged', version: LATEST }, rootPod, { rootIsHostRoot: true }), []);
  });
});
