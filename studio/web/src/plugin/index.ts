import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '@wiflow/core';
import express, { type Request } from 'express';

/** Folder of the built single-page app (vite build output). */
export const STUDIO_APP_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../app');

/**
 * Paths the studio must never shadow: APIs and MCP (`/api…`, also mistyped ones such as
 * `/api-x`), Langflow's log paths (`/logs…`), sockets and health. Their unknown paths get the
 * server's JSON 404, never the page.
 */
const NOT_THE_APP = /^\/(api|logs)|^\/(ws|health|health_check)(\/|$)/;

/** Whether a request asks for a page: it accepts HTML explicitly, as browsers navigating do (the route is GET/HEAD only). */
function wantsPage(req: Request): boolean {
  return (req.get('accept') ?? '').includes('text/html');
}

/** Serves the studio at `/`, and its page for other page requests (a single-page-app fallback). */
export default definePlugin({
  name: '@wiflow/studio-web',
  setup(ctx) {
    ctx.registerRoutes((http) => {
      if (!existsSync(path.join(STUDIO_APP_DIR, 'index.html'))) {
        ctx.logger.warn(`studio app not built (${STUDIO_APP_DIR} has no index.html): run npm run build -w @wiflow/studio-web`);
        return;
      }
      http.app.use(express.static(STUDIO_APP_DIR, { index: false, maxAge: '1h', immutable: false }));
      // `/` is the app (it routes by URL hash); other paths serve it only to page requests, so
      // API clients (Accept: JSON or */*) on a mistyped path fall through to the JSON 404.
      http.app.get(/.*/, (req, res, next) => {
        if (NOT_THE_APP.test(req.path) || (req.path !== '/' && !wantsPage(req))) return next();
        res.setHeader('Cache-Control', 'no-cache');
        res.sendFile(path.join(STUDIO_APP_DIR, 'index.html'));
      });
    });
  },
});
