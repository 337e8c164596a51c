// The explorer is served by the Python service at /ui/ (api/explorer); the build goes straight
// into the folder it serves, and ui/check.sh checks that a fresh build reproduces it byte for byte.
import { babelOptimizerPlugin } from "@graphql-codegen/client-preset";
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

// Where codegen writes the precompiled documents (codegen.ts); the babel plugin imports them from here.
const ARTIFACTS = fileURLToPath(new URL("./src/gql", import.meta.url));

/** The built page without its comments and the indentation between tags: the source page is the
 * readable one, the served page needs neither. */
function compactHtml(): Plugin {
  return {
    name: "recmem-compact-html",
    apply: "build",
    transformIndexHtml: {
      // After Vite has put the script and stylesheet tags in.
      order: "post",
      handler: (html) => `${html.replace(/<!--[\s\S]*?-->/g, "").replace(/>\s+</g, "><").trim()}\n`,
    },
  };
}

export default defineConfig({
  base: "/ui/",
  plugins: [
    // Each `graphql(`…`)` call becomes an import of its precompiled document, so the operations'
    // source text (and gql.ts's map of it) stays out of the bundle.
    react({ babel: { plugins: [[babelOptimizerPlugin, { artifactDirectory: ARTIFACTS, gqlTagName: "graphql" }]] } }),
    compactHtml(),
  ],
  build: {
    outDir: "../api/explorer/dist",
    emptyOutDir: true,
    sourcemap: false,
    // One app chunk and one stylesheet, plus the graph library on its own (it is large).
    chunkSizeWarningLimit: 1200,
    rollupOptions: {
      output: {
        manualChunks: { cytoscape: ["cytoscape"] },
      },
    },
  },
  server: {
    proxy: { "/graphql": { target: "http://127.0.0.1:8080", ws: true } },
  },
});
