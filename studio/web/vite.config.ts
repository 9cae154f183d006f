import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'src/app',
  plugins: [react()],
  // The automatic JSX runtime, whichever transformer runs (the plugin alone left classic
  // React.createElement calls in the bundle: "React is not defined" in the browser).
  esbuild: { jsx: 'automatic', jsxImportSource: 'react' },
  // One React: @xyflow/react is hoisted to the root node_modules, where another workspace's
  // React 18 lives; without this the canvas ran on a second React (hooks on null).
  resolve: { dedupe: ['react', 'react-dom'] },
  build: { outDir: '../../dist/app', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/api': 'http://127.0.0.1:8080', '/ws': { target: 'ws://127.0.0.1:8080', ws: true } } },
});
