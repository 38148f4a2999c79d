import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The page is served by the gateway under SVC_BASE_PATH, which is known only when it runs: asset
// URLs are relative, resolved against the <base> the server writes into the page.
export default defineConfig({
  base: './',
  plugins: [preact()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Nothing inline: the server's Content-Security-Policy allows only the page's own files.
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: false,
  },
  server: {
    // `npm run dev -w packages/web` against a gateway on 8787.
    proxy: { '/api': 'http://127.0.0.1:8787', '/openapi.json': 'http://127.0.0.1:8787' },
  },
});
