/**
 * A container's working directory on the process runtime, which has no image file system: the
 * pod's `rootfs/` directory stands in for `/`, so `workingDir` (absolute or not) is taken relative
 * to it, and nothing the pod sends or makes leads out of it.
 *
 * Guarantees: `..` never climbs above rootfs (`/../../x` is rootfs/x, as `cd /../../x` is `/x`);
 * every component is resolved to its real path (symbolic links followed, as the container's own
 * links must work) and checked to be inside rootfs' real path before the next one is made or
 * entered, so a link the pod made (`rootfs/x -> /`) cannot make the agent create or enter
 * anything outside. Missing components are created (mode 0755, given to `owner`).
 *
 * Caveat: a pod that swaps a checked component for a link between the check and the spawn's chdir
 * moves its own process, not the agent: the process then runs there as the pod's user, with that
 * user's rights only.
 */
import { chownSync, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { posix, sep } from 'node:path';
import { ContainerConfigError } from './env.js';
import type { ProcessUser } from './users.js';

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The components of `workingDir` under `/`, with `.` and `..` applied (never above `/`). */
export function workingDirComponents(workingDir: string | undefined): string[] {
  const normal = posix.normalize(`/${workingDir ?? ''}`);
  return normal.split('/').filter((c) => c !== '' && c !== '.' && c !== '..');
}

/**
 * The real path of `workingDir` inside `rootfs` (see the file comment), created when missing.
 * Throws ContainerConfigError when a component leads outside rootfs or is not a directory.
 */
export function prepareWorkingDir(rootfs: string, workingDir: string | undefined, owner?: ProcessUser): string {
  const root = realpathSync(rootfs);
  let current = root;
  for (const component of workingDirComponents(workingDir)) {
    const next = `${current}${sep}${component}`;
    let exists = true;
    try {
      lstatSync(next);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      exists = false;
    }
    if (!exists) {
      mkdirSync(next, { mode: 0o755 });
      if (owner !== undefined) chownSync(next, owner.uid, owner.gid);
    }
    let real: string;
    try {
      real = realpathSync(next);
    } catch (err) {
      throw new ContainerConfigError(`workingDir ${JSON.stringify(workingDir)}: ${(err as Error).message}`, { cause: err });
    }
    if (!inside(root, real)) throw new ContainerConfigError(`workingDir ${JSON.stringify(workingDir)} leads outside the pod's directory (through a symbolic link)`);
    if (!lstatSync(real).isDirectory()) throw new ContainerConfigError(`workingDir ${JSON.stringify(workingDir)} is not a directory`);
    current = real;
  }
  return current;
}
