/**
 * `npm run bench -- NAME [--smoke]`: runs the benchmark bench/NAME.ts (all of them without NAME).
 * Each benchmark prints a table and writes bench/results/NAME.json. Benchmarks measure; they never
 * assert a time.
 */
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length))
  .sort();
const names = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const chosen = names.length === 0 ? available : names;
for (const name of chosen) {
  if (!available.includes(name)) {
    console.error(`unknown benchmark "${name}"; available: ${available.join(', ')}`);
    process.exit(2);
  }
}
for (const name of chosen) {
  const mod = (await import(`./${name}.bench.ts`)) as { run: () => Promise<void> };
  console.log(`# ${name}`);
  await mod.run();
}
