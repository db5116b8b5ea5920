// Bundles static/src/ (CodeMirror 6 from npm) into static/dist/ with esbuild. `node static/build.mjs [--watch]`.
// static/dist/ is build output: git-ignored, rebuilt by `make frontend` (which `make run`/`make test` need).

import { build, context } from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const options = {
  entryPoints: ["editor-page", "gallery", "cel-page", "landing", "my-projects", "workshop-index", "workshop-student", "workshop-teacher", "workshop-author", "batch-page", "impact-page"].map((name) => path.join(here, "src", `${name}.js`)),
  outdir: path.join(here, "dist"),
  bundle: true,
  format: "esm",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  minify: true,
  sourcemap: true,
  target: ["es2020"],
  legalComments: "linked",
  logLevel: "info",
};

if (process.argv.includes("--watch")) {
  const ctx = await context(options);
  await ctx.watch();
} else {
  await build(options);
}
