// The studio's build: a static app in dist/ (make studio: BUILD/studio/dist, served by `rung studio`).
import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

export default defineConfig({
  plugins: [react()],
  base: "./",
  // React, React Flow and the app are one ~520 kB chunk (150 kB gzipped); splitting waits for the engine.
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 1024 },
  test: { include: ["tests/**/*.test.ts"], environment: "node" },
});
