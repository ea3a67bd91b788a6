#!/usr/bin/env node
// Refreshes the protobuf input data of `npm run gen:api` from checkouts of Kubernetes' API
// repositories at one release tag. Not part of the build: run it only to move to another
// Kubernetes version (then `npm run gen:api`). What it writes, under data/kubernetes-v1.32/:
//
// - proto/<go import path>/generated.proto: the package's protobuf definitions, unchanged;
// - gofields.json: per message, per field (by protobuf name), the Go facts that neither the
//   OpenAPI document nor the .proto says: `f` flags — a pointer (`p`: a zero value set is still
//   written), `omitempty` (`o`: a zero value is left out), `json:",inline"` (`i`: its fields are
//   the parent's); `t` the Go type as Go's reflection prints it ("[]v1.Container", for decoding
//   errors' wording); `j` the JSON name where it is not the protobuf one; `d` the `+default=`
//   marker's value. Read from the struct tags and markers of the package's Go files; nothing else
//   is kept.
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
const BUILTIN = new Set(['string', 'bool', 'byte', 'rune', 'int', 'int8', 'int16', 'int32', 'int64', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64', 'any']);

/** A Go type as Go's reflection prints it: package names, not import aliases ("[]v1.Container"). */
function printType(type, goPackage, aliases) {
  const m = /^(\*|\[\]|map\[([^\]]+)\])(.*)$/.exec(type);
  if (m) {
    if (m[1].startsWith('map')) return `map[${printType(m[2], goPackage, aliases)}]${printType(m[3], goPackage, aliases)}`;
    return `${m[1]}${printType(m[3], goPackage, aliases)}`;
  }
  if (type === 'byte') return 'uint8';
  if (BUILTIN.has(type)) return type;
  const dot = type.indexOf('.');
  if (dot < 0) return `${goPackage}.${type}`;
  const alias = type.slice(0, dot);
  return `${aliases.get(alias) ?? alias}.${type.slice(dot + 1)}`;
}

/** Import aliases of a Go file: alias (or the path's last element) → the package's name. */
function importAliases(source) {
  const aliases = new Map();
  const block = /^import \(([\s\S]*?)^\)/m.exec(source)?.[1] ?? '';
  const single = [...source.matchAll(/^import (\w+ )?"([^"]+)"/gm)].map((m) => `${m[1] ?? ''}"${m[2]}"`);
  for (const line of [...block.split('\n'), ...single]) {
    const m = /^\s*(\w+)?\s*"([^"]+)"/.exec(line);
    if (!m) continue;
    const name = m[2].split('/').pop();
    aliases.set(m[1] ?? name, name);
  }
  return aliases;
}

/** The Go facts of every struct field with a protobuf tag in the package's Go files. */
function goFields(dir, protoPackage, goPackage) {
  const out = {};
  const files = readdirSync(dir).filter((f) => f.endsWith('.go') && !f.endsWith('_test.go') && !f.startsWith('zz_generated') && f !== 'generated.pb.go');
  // String constants of the package, for +default=ref(Name).
  const constants = new Map();
  for (const file of files) {
    for (const m of readFileSync(join(dir, file), 'utf8').matchAll(/^\s+(\w+)\s+(?:\w+\s+)?=\s+("[^"]*")/gm)) constants.set(m[1], m[2]);
  }
  for (const file of files.sort()) {
    const source = readFileSync(join(dir, file), 'utf8');
    const aliases = importAliases(source);
    let struct;
    let markers = [];
    for (const line of source.split('\n')) {
      const open = /^type (\w+) struct \{/.exec(line);
      if (open) {
        struct = open[1];
        markers = [];
        continue;
      }
      if (line.startsWith('}')) {
        struct = undefined;
        continue;
      }
      if (struct === undefined) continue;
      const comment = /^\s*\/\/\s*(\+\S.*)$/.exec(line);
      if (comment) {
        markers.push(comment[1]);
        continue;
      }
      if (/^\s*(\/\/.*)?$/.test(line)) continue;
      const fieldMarkers = markers;
      markers = [];
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
      const entry = { f: flags, t: printType(type, goPackage, aliases) };
      if (jsonName !== '' && jsonName !== protoName) entry.j = jsonName;
      // +default=VALUE (a JSON value, or a bare word for a string), as openapi-gen reads it.
      const def = fieldMarkers.map((mk) => /^\+default=(.*)$/.exec(mk)?.[1]).find((v) => v !== undefined);
      if (def !== undefined) {
        const ref = /^ref\((\w+)\)$/.exec(def.trim());
        if (ref && !constants.has(ref[1])) throw new Error(`${struct}.${protoName}: +default=${def} names no constant of the package`);
        entry.d = ref ? constants.get(ref[1]) : def.trim();
      }
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
  Object.assign(facts, goFields(dir, pkg, importPath.split('/').pop()));
}
// One message per line, sorted, so that a new release's changes read as a diff.
const lines = Object.keys(facts).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(facts[k])}`);
writeFileSync(join(data, 'gofields.json'), `{\n${lines.join(',\n')}\n}\n`);
console.log(`${lines.length} messages' Go facts, ${SUPPORT_PACKAGES.length + GROUP_VERSIONS.length} proto files`);
