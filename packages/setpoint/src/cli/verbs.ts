/**
 * The client verbs of `setpoint` — for people without kubectl — registered on the program with the
 * streams they read and write.
 */
import type { Command } from 'commander';
import { registerApply } from '../commands/apply.js';
import { registerCompletion } from '../commands/completion.js';
import { registerDelete } from '../commands/delete.js';
import { registerDescribe } from '../commands/describe.js';
import { registerGet } from '../commands/get.js';
import { registerKubectlConfig } from '../commands/kubectl-config.js';
import { registerLogs } from '../commands/logs.js';
import { registerSnapshot } from '../commands/snapshot.js';
import { registerWait } from '../commands/wait.js';
import type { CliIO } from './io.js';

/** Registers get, apply, delete, describe, logs, wait, kubectl-config, snapshot and completion. */
export function registerClientVerbs(program: Command, io: CliIO): void {
  registerGet(program, io);
  registerApply(program, io);
  registerDelete(program, io);
  registerDescribe(program, io);
  registerLogs(program, io);
  registerWait(program, io);
  registerKubectlConfig(program, io);
  registerSnapshot(program, io);
  registerCompletion(program, io);
}
