import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The dashboard (docs/dashboard.md). TSX goes through Vite's own esbuild transform (automatic JSX
// runtime), so no framework plugin is needed; `npm run dev:web` serves it with the API proxied.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  publicDir: false,
  esbuild: { jsx: "automatic" },
  build: {
    outDir: "dist",
    assetsDir: "assets",
    target: "es2022",
    sourcemap: false,
    // Chromium, Firefox and Safari all support modulepreload; the polyfill would cost bytes.
    modulePreload: { polyfill: false },
    // Keep every stylesheet a file of its own: the CSP forbids inline styles.
    assetsInlineLimit: 0,
    rollupOptions: {
      onwarn(warning, warn) {
        // React libraries mark modules "use client" for server components; meaningless in a SPA.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
    },
  },
  server: {
    proxy: {
      "/api": "http://127.0.0.1:3000",
      "/openapi.json": "http://127.0.0.1:3000",
      "/docs": "http://127.0.0.1:3000",
    },
  },
});
