// The studio's build: a static app in dist/ (served by scripts/serve.mjs, later `rung studio`).
import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

export default defineConfig({
  plugins: [react()],
  base: "./",
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
  test: { include: ["tests/**/*.test.ts"], environment: "node" },
});
