import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
// In `vite dev`, the API and mock traffic go to a locally running server (npm start).
const target = process.env.MOCKYARD_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // Keep every script an external file: the server sends `script-src 'self'`.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  server: {
    proxy: {
      '/api': { target, changeOrigin: false },
      '/m/': { target, changeOrigin: false },
      '/healthz': { target },
    },
  },
});
