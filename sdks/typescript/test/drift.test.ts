import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import openapiTS, { astToString } from "openapi-typescript";

import { CONTRACT_VERSION } from "../src/index.js";

// src/schema.ts is generated from the committed contract; regenerating it must
// change nothing (run `npm run generate` after a contract change).
test("the generated types match the committed contract", async () => {
  const contract = new URL("../../../../shared/api/contract/openapi.json", import.meta.url);
  const generated = astToString(await openapiTS(contract));
  const committed = readFileSync(new URL("../../src/schema.ts", import.meta.url), "utf8");
  const body = (text: string) => text.slice(text.indexOf("export"));
  assert.ok(
    body(committed) === body(generated),
    "sdks/typescript/src/schema.ts drifted from shared/api/contract/openapi.json: run sdks/typescript/regenerate",
  );
  const version = JSON.parse(readFileSync(contract, "utf8")).info.version;
  const sdk = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;
  assert.equal(sdk, version, "the SDK's version is the contract's");
  assert.equal(CONTRACT_VERSION, version);
});
