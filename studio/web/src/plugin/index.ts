import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '@wiflow/core';
import express from 'express';

/** Folder of the built single-page app (vite build output). */
export const STUDIO_APP_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../app');

/** Paths the studio must never shadow: APIs, sockets, MCP. */
const NOT_THE_APP = /^\/(api|ws|health|health_check)(\/|$)/;

/** Serves the studio at `/` with a single-page-app fallback. */
export default definePlugin({
  name: '@wiflow/studio-web',
  setup(ctx) {
    ctx.hooks.http.tap(ctx.name, (http) => {
      if (!existsSync(path.join(STUDIO_APP_DIR, 'index.html'))) {
        ctx.logger.warn(`studio app not built (${STUDIO_APP_DIR} has no index.html): run npm run build -w @wiflow/studio-web`);
        return;
      }
      http.app.use(express.static(STUDIO_APP_DIR, { index: false, maxAge: '1h', immutable: false }));
      http.app.get(/^\/(?!api\/|ws\/).*/, (req, res, next) => {
        if (NOT_THE_APP.test(req.path) || req.method !== 'GET') return next();
        res.setHeader('Cache-Control', 'no-cache');
        res.sendFile(path.join(STUDIO_APP_DIR, 'index.html'));
      });
    });
  },
});
