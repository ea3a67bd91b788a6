/**
 * Builds the dashboard to dist/: static files the API server serves at /ui/ (hence `base`).
 * JSX is compiled for Preact by Vite's own transformer; no CDN, no runtime downloads.
 *
 * `npx vite` (in this directory) serves the app with live reload at http://localhost:5173/ui/ and
 * passes API calls to the server at SETPOINT_API (default https://127.0.0.1:6443, whose
 * self-signed certificate it accepts).
 *
 * The workspace packages it imports (@setpoint/api, @setpoint/client/watcher: browser-safe entries,
 * no node: modules) are bundled from their TypeScript sources (the `setpoint-src` condition).
 */
import { defaultClientConditions, defineConfig } from 'vite';

const api = { target: process.env.SETPOINT_API ?? 'https://127.0.0.1:6443', secure: false, changeOrigin: true };

export default defineConfig({
  base: '/ui/',
  // @setpoint/api and @setpoint/client/watcher are bundled from their TypeScript sources.
  resolve: { conditions: ['setpoint-src', ...defaultClientConditions] },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  server: { proxy: { '/api': api, '/apis': api, '/dashboard': api, '/metrics': api } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
  },
});
