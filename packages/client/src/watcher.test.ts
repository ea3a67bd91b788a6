import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const packages = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The file a specifier names, from `from` (relative, or a workspace package's setpoint-src entry). */
function resolveImport(from: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) {
    const js = resolve(dirname(from), specifier);
    for (const candidate of [js.replace(/\.js$/, '.ts'), js.replace(/\.js$/, '.tsx'), js]) if (existsSync(candidate)) return candidate;
    throw new Error(`${from}: cannot resolve ${specifier}`);
  }
  const m = /^@setpoint\/([^/]+)(?:\/(.+))?$/.exec(specifier);
  if (m === null) return undefined; // a third-party package
  const manifest = JSON.parse(readFileSync(resolve(packages, m[1]!, 'package.json'), 'utf8')) as { exports: Record<string, { 'setpoint-src': string }> };
  const entry = manifest.exports[m[2] === undefined ? '.' : `./${m[2]}`];
  assert.ok(entry !== undefined, `${specifier} is not an exported entry`);
  return resolve(packages, m[1]!, entry['setpoint-src']);
}

/** Every module specifier `start` pulls in at run time (type-only imports and exports left out), by file. */
function runtimeImports(start: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const todo = [start];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    const specifiers: string[] = [];
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) if (m[1] === undefined) specifiers.push(m[2]!);
    for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) specifiers.push(m[1]!);
    seen.set(file, specifiers);
    for (const s of specifiers) {
      const target = resolveImport(file, s);
      if (target !== undefined) todo.push(target);
    }
  }
  return seen;
}

describe('@setpoint/client/watcher', () => {
  it('imports no Node module, directly or through the files and packages it imports', () => {
    const graph = runtimeImports(resolve(packages, 'client/src/watcher.ts'));
    assert.ok(graph.has(resolve(packages, 'client/src/informer/watcher.ts')));
    assert.ok(graph.has(resolve(packages, 'api/src/index.ts')), 'follows @setpoint/api');
    const node = new Set(builtinModules);
    const offending = [...graph].flatMap(([file, specifiers]) => specifiers.filter((s) => s.startsWith('node:') || node.has(s)).map((s) => `${file}: ${s}`));
    assert.deepEqual(offending, []);
  });

  it('is the entry package.json exports as ./watcher, and exports the Watcher and its pager', async () => {
    assert.equal(resolveImport(resolve(packages, 'client/src/index.ts'), '@setpoint/client/watcher'), resolve(packages, 'client/src/watcher.ts'));
    const entry = await import('./watcher.js');
    const index = await import('./index.js');
    assert.equal(entry.Watcher, index.Watcher);
    assert.equal(typeof entry.readPage, 'function');
  });
});
