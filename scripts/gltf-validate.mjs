// gltf-validate.mjs runs Khronos' glTF-Validator (npm package gltf-validator,
// 2.0.0-dev.3.10) over glTF 2.0 files.
//
//   node scripts/gltf-validate.mjs [--modules DIR] FILE...
//
// For each file it prints one JSON line
//
//   {"file":..., "errors":N, "warnings":N, "infos":N, "messages":[...]}
//
// where messages are the validator's issues (code, message, severity 0-3 for
// error, warning, info, hint, and pointer or offset). It exits with status 1
// if any file has errors or warnings or cannot be validated, 2 on bad usage.
// External resources (.bin buffers, images) are read relative to each file.
//
// The validator module is looked up in, in order: the directory given with
// --modules, $GALLOP_NPM_DIR, each directory of $NODE_PATH, and
// <repo>/.cache/npm/node_modules, where the Makefile installs it with
//
//   npm install --prefix .cache/npm gltf-validator@2.0.0-dev.3.10
//
// (ES modules ignore NODE_PATH, hence the explicit search.)

import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

function usage(msg) {
  process.stderr.write(`gltf-validate: ${msg}\nusage: node scripts/gltf-validate.mjs [--modules DIR] FILE...\n`);
  process.exit(2);
}

const files = [];
const dirs = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--modules") {
    if (i + 1 >= args.length) usage("--modules needs a directory");
    dirs.push(args[++i]);
  } else if (args[i].startsWith("--modules=")) {
    dirs.push(args[i].slice("--modules=".length));
  } else {
    files.push(args[i]);
  }
}
if (files.length === 0) usage("no files");
if (process.env.GALLOP_NPM_DIR) dirs.push(process.env.GALLOP_NPM_DIR);
for (const d of (process.env.NODE_PATH || "").split(path.delimiter)) {
  if (d) dirs.push(d);
}
dirs.push(path.join(here, "..", ".cache", "npm", "node_modules"));

const found = dirs.find((d) => existsSync(path.join(d, "gltf-validator", "package.json")));
if (!found) {
  process.stderr.write(
    `gltf-validate: module gltf-validator not found in ${dirs.join(", ")}\n` +
      `install it with: npm install --prefix ${path.join(here, "..", ".cache", "npm")} gltf-validator@2.0.0-dev.3.10\n`,
  );
  process.exit(1);
}
const validator = createRequire(import.meta.url)(path.resolve(found, "gltf-validator"));

let failed = false;
for (const file of files) {
  const line = { file, errors: 0, warnings: 0, infos: 0, messages: [] };
  try {
    const data = await readFile(file);
    const report = await validator.validateBytes(new Uint8Array(data), {
      uri: path.basename(file),
      maxIssues: 0,
      writeTimestamp: false,
      externalResourceFunction: (uri) =>
        readFile(path.resolve(path.dirname(file), decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
    });
    line.errors = report.issues.numErrors;
    line.warnings = report.issues.numWarnings;
    line.infos = report.issues.numInfos;
    line.messages = report.issues.messages;
  } catch (err) {
    line.errors = 1;
    line.messages = [{ code: "VALIDATION_FAILED", message: String(err), severity: 0 }];
  }
  failed ||= line.errors > 0 || line.warnings > 0;
  process.stdout.write(JSON.stringify(line) + "\n");
}
process.exit(failed ? 1 : 0);
