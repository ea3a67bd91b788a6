#!/usr/bin/env node
// `npm run gen:api`: derives the built-in kinds' generated code from Kubernetes' published API
// definitions kept as data in data/kubernetes-v1.32/ (see its README). The output is checked in;
// `npm run gen:api -- --check` exits non-zero, naming the files, when any of it is stale (a test
// runs it), so that a hand edit of generated output, or of the data without regenerating, fails.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { definitionsModule, openapiDefinitions } from './openapi.mjs';
import { messagesModule, protobufMessages, protobufPackages } from './protobuf.mjs';
import { typescriptModules } from './typescript.mjs';

const root = new URL('../..', import.meta.url).pathname;
const data = join(root, 'data/kubernetes-v1.32');
const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });

/** Every generated file: path from the repository root → its content. */
function generate() {
  const definitions = openapiDefinitions(data);
  const types = typescriptModules(definitions, 'data/kubernetes-v1.32/swagger.json');
  return {
    ...Object.fromEntries(Object.entries(types).map(([file, content]) => [`packages/api/src/generated/${file}`, content])),
    'packages/apiserver/src/http/protobuf/generated/messages.ts': messagesModule(
      protobufMessages(data),
      protobufPackages(data),
      'data/kubernetes-v1.32/proto and gofields.json',
    ),
    'packages/apiserver/src/registry/schemas/generated/definitions.ts': definitionsModule(
      definitions,
      'data/kubernetes-v1.32/swagger.json and gofields.json',
    ),
  };
}

const files = generate();
const stale = [];
// A directory written whole: a file there that is no longer generated is stale too (and removed).
for (const dir of ['packages/api/src/generated']) {
  for (const name of readdirSync(join(root, dir))) {
    const path = `${dir}/${name}`;
    if (files[path] !== undefined) continue;
    stale.push(path);
    if (!values.check) rmSync(join(root, path));
  }
}
for (const [path, content] of Object.entries(files)) {
  const target = join(root, path);
  let current;
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === content) continue;
  stale.push(relative(root, target));
  if (!values.check) writeFileSync(target, content);
}
if (values.check) {
  if (stale.length > 0) {
    console.error(`generated files out of date (run npm run gen:api): ${stale.join(', ')}`);
    process.exit(1);
  }
  console.log(`${Object.keys(files).length} generated files up to date`);
} else {
  console.log(stale.length === 0 ? 'generated files already up to date' : `updated ${stale.join(', ')}`);
}
