// The explorer is served by the Python service at /ui/ (api/explorer); the build goes straight
// into the folder it serves, and ui/check.sh checks that a fresh build reproduces it byte for byte.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  base: "/ui/",
  plugins: [react()],
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
