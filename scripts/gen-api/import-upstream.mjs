#!/usr/bin/env node
// Refreshes the protobuf input data of `npm run gen:api` from checkouts of Kubernetes' API
// repositories at one release tag. Not part of the build: run it only to move to another
// Kubernetes version (then `npm run gen:api`). What it writes, under data/kubernetes-v1.32/:
//
// - proto/<go import path>/generated.proto: the package's protobuf definitions, unchanged;
// - gofields.json: per message, the Go facts of each field that neither the OpenAPI document nor
//   the .proto says and that decide the field's JSON form: a pointer (`p`: a zero value set is
//   still written), `omitempty` (`o`: a zero value is left out), `json:",inline"` (`i`: its fields
//   are the parent's), as "flags" or "flags:jsonName" where the JSON name differs from the
//   protobuf one. Read from the struct tags of the package's Go files; nothing else is kept.
//
// Usage: node scripts/gen-api/import-upstream.mjs --api DIR --apimachinery DIR
//          --apiextensions DIR --aggregator DIR
// (each DIR a checkout of kubernetes/api, kubernetes/apimachinery,
// kubernetes/apiextensions-apiserver and kubernetes/kube-aggregator at the same v0.x tag).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { GROUP_VERSIONS, SUPPORT_PACKAGES } from './packages.mjs';

const root = new URL('../..', import.meta.url).pathname;
const data = join(root, 'data/kubernetes-v1.32');

const { values } = parseArgs({
  options: {
    api: { type: 'string' },
    apimachinery: { type: 'string' },
    apiextensions: { type: 'string' },
    aggregator: { type: 'string' },
  },
});
for (const name of ['api', 'apimachinery', 'apiextensions', 'aggregator']) {
  if (values[name] === undefined) {
    console.error(`--${name} DIR is required (a checkout of the repository at the release tag)`);
    process.exit(2);
  }
}

/** The checkout holding a Go import path, and the path inside it. */
function locate(importPath) {
  const prefixes = [
    ['k8s.io/api/', values.api],
    ['k8s.io/apimachinery/', values.apimachinery],
    ['k8s.io/apiextensions-apiserver/', values.apiextensions],
    ['k8s.io/kube-aggregator/', values.aggregator],
  ];
  for (const [prefix, dir] of prefixes) if (importPath.startsWith(prefix)) return join(dir, importPath.slice(prefix.length));
  throw new Error(`no checkout for ${importPath}`);
}

const FIELD = /^\t(?:(\w+)\s+)?([*\[\]\w.]+(?:\[[\w.]+\][*\w.]+)?)\s+`([^`]*)`/;

/** The Go facts of every struct field with a protobuf tag in the package's Go files. */
function goFields(dir, protoPackage) {
  const out = {};
  const files = readdirSync(dir).filter((f) => f.endsWith('.go') && !f.endsWith('_test.go') && !f.startsWith('zz_generated') && f !== 'generated.pb.go');
  for (const file of files.sort()) {
    let struct;
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const open = /^type (\w+) struct \{/.exec(line);
      if (open) {
        struct = open[1];
        continue;
      }
      if (line.startsWith('}')) {
        struct = undefined;
        continue;
      }
      if (struct === undefined) continue;
      const m = FIELD.exec(line);
      if (!m) continue;
      const [, name, type, tags] = m;
      const json = /json:"([^"]*)"/.exec(tags)?.[1];
      const proto = /protobuf:"([^"]*)"/.exec(tags)?.[1];
      if (json === undefined || proto === undefined) continue;
      // Without name=, go-to-protobuf names the field after the Go field (or the embedded type).
      const goName = name ?? type.replace(/^\*/, '').replace(/^.*\./, '');
      const protoName = /(?:^|,)name=(\w+)/.exec(proto)?.[1] ?? `${goName[0].toLowerCase()}${goName.slice(1)}`;
      const [jsonName, ...jsonOpts] = json.split(',');
      let flags = '';
      if (type.startsWith('*')) flags += 'p';
      if (jsonOpts.includes('omitempty')) flags += 'o';
      if (jsonOpts.includes('inline') || (name === undefined && jsonName === '')) flags += 'i';
      // "flags" or "flags:jsonName" when the JSON name is not the protobuf one.
      const entry = jsonName !== '' && jsonName !== protoName ? `${flags}:${jsonName}` : flags;
      (out[`${protoPackage}.${struct}`] ??= {})[protoName] = entry;
    }
  }
  return out;
}

const facts = {};
for (const importPath of [...SUPPORT_PACKAGES, ...GROUP_VERSIONS.map((gv) => gv.goPackage)]) {
  const dir = locate(importPath);
  const proto = readFileSync(join(dir, 'generated.proto'), 'utf8');
  const pkg = /^package ([\w.]+);/m.exec(proto)?.[1];
  if (pkg === undefined) throw new Error(`${importPath}/generated.proto has no package line`);
  const target = join(data, 'proto', importPath, 'generated.proto');
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, proto);
  Object.assign(facts, goFields(dir, pkg));
}
// One message per line, sorted, so that a new release's changes read as a diff.
const lines = Object.keys(facts).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(facts[k])}`);
writeFileSync(join(data, 'gofields.json'), `{\n${lines.join(',\n')}\n}\n`);
console.log(`${lines.length} messages' Go facts, ${SUPPORT_PACKAGES.length + GROUP_VERSIONS.length} proto files`);
