import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { WebSocketServer, type WebSocket } from 'ws';
import { CoreErrors } from '../errors.js';
import type { Runtime } from '../runtime/runtime.js';

/** Handles one accepted WebSocket connection. */
export type WebSocketHandler = (socket: WebSocket, request: IncomingMessage) => void;

/** Decides whether to accept an upgrade; answer with an HTTP status and reason to refuse. */
export type UpgradeGuard = (request: IncomingMessage) => Promise<{ ok: true } | { ok: false; status: number; reason: string }> | { ok: true } | { ok: false; status: number; reason: string };

/** What plugins get in `hooks.http`: the app and WebSocket routing on the one server. */
export interface HttpRegistrar {
  app: Express;
  /** Accept WebSocket upgrades on `path` (exact, or a prefix ending in `/*`). */
  websocket(path: string, handler: WebSocketHandler, guard?: UpgradeGuard, options?: WebSocketRouteOptions): WebSocketServer;
}

/** How one WebSocket route's connections behave. */
export interface WebSocketRouteOptions {
  /**
   * Longest a connection the server closes is kept for its closing handshake before the socket
   * is destroyed (ws's default: 30 s). A client that is not reading receives the close frame
   * (code and reason) only once it reads again; destroying the socket earlier loses them.
   */
  closeTimeoutMs?: number;
}

interface SocketRoute {
  path: string;
  server: WebSocketServer;
  handler: WebSocketHandler;
  guard?: UpgradeGuard;
}

/** One Express app and one http.Server on one port, WebSocket upgrades routed by path. */
export class HttpHost {
  readonly app: Express = express();
  server: Server | undefined;
  readonly #routes: SocketRoute[] = [];
  #registered = false;

  constructor(private readonly runtime: Runtime) {
    this.app.disable('x-powered-by');
    // Until configured, X-Forwarded-For is not believed from anyone (register() applies server.trustProxy).
    this.app.set('trust proxy', false);
  }

  /** Let plugins register routes (once), then add core's health route and fallbacks. */
  async register(): Promise<void> {
    if (this.#registered) return;
    this.#registered = true;
    const runtime = this.runtime;
    // A forwarded client address is believed only from the proxies the operator named: otherwise anyone who can reach the
    // port could pick their own address (and with it their own rate-limit bucket).
    this.app.set('trust proxy', runtime.config.get('server').trustProxy);
    await runtime.hooks.http.promise({
      app: this.app,
      websocket: (path, handler, guard, options) => {
        const server = new WebSocketServer({ noServer: true, maxPayload: 1 << 20, ...(options?.closeTimeoutMs ? { closeTimeout: options.closeTimeoutMs } : {}) });
        this.#routes.push({ path, server, handler, guard });
        return server;
      },
    });
    // After the plugins' routes, so a plugin (the pose API) can serve its own /api/v1/health.
    this.app.get('/api/v1/health', (_req, res) => {
      res.json({ status: runtime.state === 'started' ? 'healthy' : 'starting', timestamp: new Date().toISOString(), version: runtime.version, uptime: Math.floor((Date.now() - runtime.startedAt) / 1000) });
    });
    // Whatever no plugin answered, at any path: JSON in the flow service's envelope, never a page.
    this.app.use((req: Request, res: Response) => {
      const error = CoreErrors.routeNotFound(req.method, req.path);
      res.status(error.status).json({ detail: error.message, code: error.code });
    });
    // Errors no plugin answered, e.g. Express's own 400 for a path parameter that is not valid
    // percent-encoding (raised while matching routes, before any route runs): the same envelope.
    this.app.use((error: Error & { status?: number; statusCode?: number; type?: string; code?: unknown }, _req: Request, res: Response, _next: NextFunction) => {
      const status = error.status ?? error.statusCode ?? 500;
      if (status >= 500) runtime.logger.error('request failed', { error: error.message });
      if (res.headersSent) return;
      const code = typeof error.code === 'string' && error.code.startsWith('WIFLOW_') ? error.code : error instanceof URIError ? CoreErrors.invalidPathEncoding.code : CoreErrors.requestFailed.code;
      res.status(status).json({ detail: status >= 500 ? 'internal error' : error.message, code });
    });
  }

  /** Start listening; resolves with the bound address. */
  async listen(port: number, host: string): Promise<{ port: number; host: string; url: string }> {
    await this.register();
    // A request target that is no URL never reaches Express: its router would hand it to the
    // default final handler, which answers an HTML page instead of the JSON error.
    const server = createServer((request, response) => {
      if (requestTargetIsUrl(request.url)) return void this.app(request, response);
      const error = CoreErrors.invalidRequestTarget();
      const body = JSON.stringify({ detail: error.message, code: error.code });
      response.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' }).end(body);
    });
    this.server = server;
    server.on('upgrade', (request, socket, head) => void this.#upgrade(request, socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address();
    const bound = typeof address === 'object' && address ? address.port : port;
    const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
    return { port: bound, host, url: `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${bound}` };
  }

  async #upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    // Node's parser passes on request targets that are no URL ('//[', 'http://['); this runs
    // outside Express, so a throw here would be an unhandled rejection that ends the process.
    if (!requestTargetIsUrl(request.url)) {
      const error = CoreErrors.invalidRequestTarget();
      const body = JSON.stringify({ detail: error.message, code: error.code });
      socket.end(`HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      return;
    }
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    const route = this.#routes.find((r) => (r.path.endsWith('/*') ? pathname.startsWith(r.path.slice(0, -1)) : r.path === pathname));
    if (!route) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    try {
      const verdict = route.guard ? await route.guard(request) : { ok: true as const };
      if (!verdict.ok) {
        const body = JSON.stringify({ detail: verdict.reason });
        socket.end(`HTTP/1.1 ${verdict.status} ${verdict.reason.replace(/[\r\n]/g, ' ')}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
        return;
      }
      route.server.handleUpgrade(request, socket, head, (ws) => route.handler(ws, request));
    } catch (error) {
      this.runtime.logger.error('websocket upgrade failed', { error: String(error) });
      socket.destroy();
    }
  }

  /** Close every WebSocket (1001) and the server; force-close connections after `timeoutMs`. */
  async close(timeoutMs: number): Promise<void> {
    for (const route of this.#routes) {
      for (const client of route.server.clients) client.close(1001, 'server shutting down');
      route.server.close();
    }
    const server = this.server;
    if (!server?.listening) return;
    // Keep-alive connections become idle as their last response ends: close them as they do.
    server.closeIdleConnections();
    const sweep = setInterval(() => server.closeIdleConnections(), 25);
    const timer = setTimeout(() => {
      server.closeAllConnections();
      for (const route of this.#routes) for (const client of route.server.clients) client.terminate();
    }, timeoutMs);
    timer.unref();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    clearInterval(sweep);
    clearTimeout(timer);
  }
}

/** Whether a request target parses as a URL (Node's HTTP parser lets through some that do not, e.g. '//['). */
function requestTargetIsUrl(target: string | undefined): boolean {
  return URL.canParse(target ?? '/', 'http://localhost');
}
