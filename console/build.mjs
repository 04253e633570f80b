// Builds dist/ (committed; the platform compiles it in): the app bundle
// (esbuild), the page and styles, and the icon sprite of every token in
// icons.json (written by a Rust test from what the platform can send).
// Deterministic: tests/run rebuilds and fails when dist/ differs.
import { readFileSync, writeFileSync, mkdirSync, copyFileSync, existsSync } from "node:fs";
import { build } from "esbuild";

const icons = JSON.parse(readFileSync("icons.json", "utf8"));
mkdirSync("dist", { recursive: true });

await build({
  entryPoints: ["src/main.tsx"],
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  jsx: "automatic",
  jsxImportSource: "preact",
  outfile: "dist/app.js",
  legalComments: "none",
  // The SDK's client imports openapi-fetch; the console's own copy (the
  // same pinned version) serves both.
  alias: { "openapi-fetch": "./node_modules/openapi-fetch" },
  define: { __CATEGORY_ICONS__: JSON.stringify(icons.categories) },
  logLevel: "warning",
});

// The sprite: one <symbol> per token, Material Design Icons' paths.
const tokens = [...new Set([...icons.tokens, ...Object.values(icons.categories), ...icons.interface])].sort();
// Platform tokens whose Material Design icon has another name.
const ALIASES = { brightness: "brightness-6", "white-balance": "white-balance-sunny" };
const missing = [];
const symbols = tokens.flatMap((token) => {
  const file = `node_modules/@mdi/svg/svg/${ALIASES[token] ?? token}.svg`;
  if (!existsSync(file)) {
    missing.push(token);
    return [];
  }
  const svg = readFileSync(file, "utf8");
  const viewBox = svg.match(/viewBox="([^"]+)"/)?.[1] ?? "0 0 24 24";
  const inner = svg.replace(/^<svg[^>]*>/, "").replace(/<\/svg>\s*$/, "");
  return [`<symbol id="i-${token}" viewBox="${viewBox}">${inner}</symbol>`];
});
writeFileSync("dist/icons.svg", `<svg xmlns="http://www.w3.org/2000/svg">${symbols.join("")}</svg>\n`);
if (missing.length) {
  // Drawn with the category icon instead (the client's fallback rule).
  console.warn(`no Material Design icon for: ${missing.join(", ")}`);
}

copyFileSync("static/index.html", "dist/index.html");
copyFileSync("static/app.css", "dist/app.css");
