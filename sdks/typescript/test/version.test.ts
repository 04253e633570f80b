import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

import { CONTRACT_VERSION } from "../src/index.js";

// The contract (shared/api/contract/openapi.json, info.version) is the one
// source of the SDK's version: ./regenerate writes it into package.json and
// CONTRACT_VERSION, and what npm packs must carry it.
const root = new URL("../../", import.meta.url);
const contract = JSON.parse(readFileSync(new URL("../../shared/api/contract/openapi.json", root), "utf8"));
const manifest = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));

test("the package's version is the contract's", () => {
  assert.equal(manifest.version, contract.info.version, "package.json's version (run sdks/typescript/regenerate)");
  assert.equal(CONTRACT_VERSION, contract.info.version, "CONTRACT_VERSION in src/index.ts (run sdks/typescript/regenerate)");
});

// What `npm pack` puts in the tarball (listed without packing: tsc has built
// dist/ already, so the prepack build is skipped): the compiled sources and
// their declarations (one of each per src/*.ts), what the exports map names, and no tests or smoke.
test("the packed package holds dist/src and what its exports name, at the contract's version", () => {
  const pack = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "--loglevel=error"], {
    cwd: fileURLToPath(root),
    encoding: "utf8",
  });
  assert.equal(pack.status, 0, pack.stderr);
  const [tarball] = JSON.parse(pack.stdout) as { version: string; files: { path: string }[] }[];
  assert.ok(tarball);
  assert.equal(tarball.version, contract.info.version);
  const files = tarball.files.map((f) => f.path).sort();
  const stray = files.filter((f) => !f.startsWith("dist/src/") && !["package.json", "README.md"].includes(f));
  assert.deepEqual(stray, [], "only dist/src, package.json and README.md are packed");
  const sources = readdirSync(new URL("src/", root)).filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
  assert.ok(sources.includes("index.ts"));
  for (const name of sources.map((f) => f.slice(0, -".ts".length))) {
    assert.ok(files.includes(`dist/src/${name}.js`), `dist/src/${name}.js is packed`);
    assert.ok(files.includes(`dist/src/${name}.d.ts`), `dist/src/${name}.d.ts is packed`);
  }
  const targets = [manifest.main, manifest.types, ...Object.values(manifest.exports).flatMap((e) => (typeof e === "string" ? [e] : Object.values(e as Record<string, string>)))];
  for (const target of targets) {
    assert.ok(files.includes(String(target).replace(/^\.\//, "")), `${target} (named by package.json) is packed`);
  }
  assert.equal(manifest.private, undefined, "the package is publishable");
});
