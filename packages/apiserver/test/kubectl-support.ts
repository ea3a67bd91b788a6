/**
 * kubectl, run against a test server: every call asynchronous (the server runs in this process;
 * execFileSync would block it) with a deadline — `--request-timeout` for its requests and a kill
 * timer for the process — a private discovery cache, and the server's kubeconfig.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestServer } from './harness.js';

/** The longest a kubectl process may run before it is killed. */
export const KUBECTL_DEADLINE_MS = 15_000;

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ObjectJson {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
  };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
}

/** Flags every kubectl call gets: this server's kubeconfig, a private discovery cache, a deadline. */
export function baseArgs(srv: TestServer): string[] {
  return [`--kubeconfig=${srv.kubeconfig!}`, `--cache-dir=${join(srv.dir, 'kube-cache')}`, '--request-timeout=10s'];
}

/** Runs kubectl to completion; resolves with its exit code and output (a non-zero exit is not an error). */
export function kubectl(srv: TestServer, ...args: string[]): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    execFile('kubectl', [...baseArgs(srv), ...args], { timeout: KUBECTL_DEADLINE_MS, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err === null) return resolve({ code: 0, stdout, stderr });
      if (typeof err.code === 'number') return resolve({ code: err.code, stdout, stderr });
      reject(new Error(`kubectl ${args.join(' ')} did not finish (${err.signal ?? err.message}): ${stderr}`, { cause: err }));
    });
  });
}

/**
 * Runs kubectl and requires exit code 0 and nothing on stderr (kubectl reports discovery and
 * OpenAPI trouble, and the server's Warning headers, there even when the command succeeds).
 */
export async function kubectlOk(srv: TestServer, ...args: string[]): Promise<string> {
  const res = await kubectl(srv, ...args);
  assert.equal(res.code, 0, `kubectl ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  assert.equal(res.stderr, '', `kubectl ${args.join(' ')} wrote to stderr`);
  return res.stdout;
}

/** A kubectl process left running (watches, waits); killed by `stop()` or after the deadline. */
export interface BackgroundKubectl {
  readonly stdout: () => string;
  readonly running: () => boolean;
  /** Resolves when the process exits (code null when it was killed). */
  readonly exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
  stop(): Promise<void>;
}

export function startKubectl(srv: TestServer, ...args: string[]): BackgroundKubectl {
  const child = spawn('kubectl', [...baseArgs(srv), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let running = true;
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const killer = setTimeout(() => child.kill('SIGKILL'), KUBECTL_DEADLINE_MS);
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      running = false;
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
  return {
    stdout: () => stdout,
    running: () => running,
    exited,
    async stop() {
      if (running) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls `predicate` (every 10 ms) until it holds; throws after `ms`. */
export async function waitFor(what: string, predicate: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Writes a manifest into the server's temporary directory and returns its path. */
export async function manifest(srv: TestServer, name: string, text: string): Promise<string> {
  const dir = join(srv.dir, 'manifests');
  await mkdir(dir, { recursive: true });
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}
