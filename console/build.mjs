// Builds the console into shared/console/dist: one hashed JS and CSS bundle and an
// index.html that references them (no inline script or style: the CSP forbids both).
// Deterministic: the same sources give byte-identical output, which CI checks.
import { build } from "esbuild";
import { mkdirSync, readdirSync, rmSync, writeFileSync, statSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "shared", "console", "dist");
const assets = join(out, "assets");
rmSync(assets, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

const result = await build({
  entryPoints: { app: join(here, "src", "main.tsx") },
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2020",
  jsx: "automatic",
  jsxImportSource: "preact",
  entryNames: "[name]-[hash]",
  outdir: assets,
  metafile: true,
  legalComments: "none",
  logLevel: "warning",
  // A worktree may symlink node_modules; resolving through the link would put its real
  // path in the bundle's hash, and the committed file name would differ from a clone's.
  preserveSymlinks: true,
});

const files = Object.keys(result.metafile.outputs).map((p) => p.split("/").pop());
const js = files.find((f) => f.endsWith(".js"));
const css = files.find((f) => f.endsWith(".css"));
const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>SyncAssist</title>
${css ? `<link rel="stylesheet" href="/assets/${css}">\n` : ""}<script type="module" src="/assets/${js}"></script>
</head>
<body>
<div id="app"></div>
</body>
</html>
`;
writeFileSync(join(out, "index.html"), html);
const size = (f) => statSync(join(assets, f)).size;
console.log(`console: ${js} ${(size(js) / 1024).toFixed(1)} KiB` + (css ? `, ${css} ${(size(css) / 1024).toFixed(1)} KiB` : ""));
for (const f of readdirSync(assets)) if (!files.includes(f)) rmSync(join(assets, f));
