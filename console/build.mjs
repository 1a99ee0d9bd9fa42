// Builds the console into shared/console/dist: a hashed ES module entry, the chunks it
// shares with the panels loaded on demand (code splitting: rarely used panels are
// import()ed when first opened), one hashed CSS file, and an index.html that references
// the entry (no inline script or style: the CSP forbids both). Deterministic: the same
// sources give byte-identical output, which CI checks.
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
  splitting: true,
  target: "es2020",
  jsx: "automatic",
  jsxImportSource: "preact",
  entryNames: "[name]-[hash]",
  chunkNames: "chunk-[hash]",
  outdir: assets,
  metafile: true,
  legalComments: "none",
  logLevel: "warning",
  // A worktree may symlink node_modules; resolving through the link would put its real
  // path in the bundle's hash, and the committed file name would differ from a clone's.
  preserveSymlinks: true,
});

const outputs = result.metafile.outputs;
const base = (p) => p.split("/").pop();
const files = Object.keys(outputs).map(base);
// The app's own output: a chunk split at an import() has an entryPoint too.
const entry = Object.keys(outputs).find((p) => outputs[p].entryPoint?.endsWith("src/main.tsx") && p.endsWith(".js"));
const js = base(entry);
const css = base(outputs[entry].cssBundle ?? "") || files.find((f) => f.endsWith(".css"));
// First-load JS is the entry and every chunk it imports statically; the rest waits for a
// panel to be opened.
const firstLoad = new Set();
const visit = (p) => {
  if (firstLoad.has(p)) return;
  firstLoad.add(p);
  for (const i of outputs[p].imports) if (i.kind === "import-statement") visit(i.path);
};
visit(entry);
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
const kib = (n) => (n / 1024).toFixed(1) + " KiB";
const sum = (list) => list.reduce((n, f) => n + size(f), 0);
const allJS = files.filter((f) => f.endsWith(".js"));
console.log(`console: first-load JS ${kib(sum([...firstLoad].map(base)))} (${js} + ${firstLoad.size - 1} chunks), ` +
  `all JS ${kib(sum(allJS))} in ${allJS.length} files` + (css ? `, ${css} ${kib(size(css))}` : ""));
for (const f of readdirSync(assets)) if (!files.includes(f)) rmSync(join(assets, f));
