import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { WebSocket } from 'ws';
import { credentialsOf, hasRole, toAlertRecord, toSensingRecord, type Alert, type AlertRecord, type AuthRequest, type PoseFrame, type Principal, type SensingFrame } from '@wiflow/core';
import type { UpgradeGuard, WebSocketHandler } from '@wiflow/core';
import { nodeFailing } from '../system/system-controller.js';
import { PoseSection, type Convention } from '../config.js';
import { frameA, frameB } from '../schemas/pose.js';
import type { ApiServices } from '../services.js';
import { AlertFilters, CHANNELS, ClientMessage, PoseFilters, SensingFilters, SUPPORTED_PROTOCOLS } from './messages.js';
import type { z } from 'zod';

type PoseSubscription = { id: string; channel: 'pose_updates'; filters: z.output<typeof PoseFilters>; key: string; skipped: number };
type AlertSubscription = { id: string; channel: 'alerts'; filters: z.output<typeof AlertFilters> };
type SensingSubscription = { id: string; channel: 'sensing_updates'; filters: z.output<typeof SensingFilters>; skipped: number };
type Subscription = PoseSubscription | AlertSubscription | SensingSubscription;

interface Client {
  id: string;
  socket: WebSocket;
  ip: string;
  principal: Principal;
  /** What the client authenticated with, checked again while it stays connected (revocation). */
  credentials: AuthRequest;
  subscriptions: Map<string, Subscription>;
  /** Frames not sent because the client's buffer was full. */
  skippedFrames: number;
  /** Frames skipped in a row (reset by a delivered frame). */
  skippedInRow: number;
  /** Sensing seconds not sent because the client's buffer was full. */
  skippedSensing: number;
  alive: boolean;
}

/** Stream figures for status, metrics and the benchmark. */
export interface StreamCounters {
  connections: number;
  connectionsRefused: number;
  messagesSent: number;
  framesSkipped: number;
  /** Sensing seconds skipped for slow clients (one per subscription that missed it). */
  sensingSkipped: number;
  slowClientsClosed: number;
  badMessages: number;
}

/** Longest client `request_id` echoed (the message schema's limit). */
const MAX_REQUEST_ID = 128;

/** Close codes the stream uses. */
export const CloseCodes = { slowClient: 4008, goingAway: 1001, credentialsRevoked: 4001 } as const;

/**
 * The /ws/pose stream (spec section 6): authenticated on upgrade, per-IP connection and
 * per-client subscription limits, filtered pose_update and alert fan-out from the PoseHub,
 * periodic system_status, and bounded per-client buffering (skip, count, report, then close).
 */
export class PoseStream {
  readonly clients = new Set<Client>();
  readonly #perIp = new Map<string, number>();
  readonly #principals = new WeakMap<IncomingMessage, { principal: Principal; credentials: AuthRequest }>();
  readonly counters: StreamCounters = { connections: 0, connectionsRefused: 0, messagesSent: 0, framesSkipped: 0, sensingSkipped: 0, slowClientsClosed: 0, badMessages: 0 };
  #statusTimer: NodeJS.Timeout | undefined;
  #heartbeatTimer: NodeJS.Timeout | undefined;
  #revocationTimer: NodeJS.Timeout | undefined;
  #unsubscribeHub: (() => void) | undefined;
  /** Listeners of delivered frame latency (benchmarks): output-to-send time in ms. */
  onDelivered: ((ms: number) => void) | undefined;

  constructor(private readonly services: ApiServices) {}

  #enabled(): boolean {
    const pose = this.services.host.config.read(PoseSection);
    return this.services.apiConfig().websocket.enabled && pose.streaming.websocket_enabled;
  }

  /** Upgrade guard: enabled, per-IP limit, authenticated viewer (refusals are logged without the URL: it may hold a token). */
  readonly guard: UpgradeGuard = async (request) => {
    const verdict = await this.#check(request);
    if (!verdict.ok) this.#log.debug('websocket upgrade refused', { status: verdict.status, reason: verdict.reason, ip: request.socket.remoteAddress });
    return verdict;
  };

  get #log() {
    return this.services.host.logger;
  }

  #check: UpgradeGuard = async (request) => {
    if (!this.#enabled()) return { ok: false, status: 503, reason: 'the WebSocket stream is disabled (streaming.websocket_enabled)' };
    const ip = request.socket.remoteAddress ?? 'unknown';
    const max = this.services.apiConfig().websocket.maxConnectionsPerIp;
    if ((this.#perIp.get(ip) ?? 0) >= max) {
      this.counters.connectionsRefused++;
      return { ok: false, status: 429, reason: `too many connections from this address (limit ${max})` };
    }
    const credentials = credentialsOf(request, 'socket');
    if (!credentials.bearer && !credentials.apiKey) return { ok: false, status: 401, reason: 'authentication required: pass ?token=<access token> or an Authorization header' };
    const principal = await this.services.host.hooks.authenticate.promise({ ...credentials, request });
    if (!principal) return { ok: false, status: 401, reason: 'the token is invalid or expired' };
    if (!hasRole(principal.roles, 'viewer')) return { ok: false, status: 403, reason: 'the viewer role is needed' };
    // Reserve the slot now so concurrent upgrades cannot pass the limit together.
    this.#perIp.set(ip, (this.#perIp.get(ip) ?? 0) + 1);
    this.#principals.set(request, { principal, credentials: { ...credentials, request } });
    let confirmed = false;
    request.socket.once('close', () => {
      if (!confirmed && this.#principals.has(request)) this.#release(ip);
    });
    (request as IncomingMessage & { confirmSlot?: () => void }).confirmSlot = () => (confirmed = true);
    return { ok: true };
  };

  #release(ip: string): void {
    const n = (this.#perIp.get(ip) ?? 1) - 1;
    if (n <= 0) this.#perIp.delete(ip);
    else this.#perIp.set(ip, n);
  }

  /** Connection handler. */
  readonly handler: WebSocketHandler = (socket, request) => {
    const authenticated = this.#principals.get(request);
    const ip = request.socket.remoteAddress ?? 'unknown';
    (request as IncomingMessage & { confirmSlot?: () => void }).confirmSlot?.();
    this.#principals.delete(request);
    if (!authenticated) {
      socket.close(1008, 'not authenticated');
      return;
    }
    const { principal, credentials } = authenticated;
    const client: Client = { id: randomUUID(), socket, ip, principal, credentials, subscriptions: new Map(), skippedFrames: 0, skippedInRow: 0, skippedSensing: 0, alive: true };
    this.clients.add(client);
    this.counters.connections++;
    this.#log.debug('websocket connected', { client_id: client.id, ip, user: principal.username, via: principal.via.split(':')[0] });
    socket.on('pong', () => (client.alive = true));
    socket.on('message', (data, isBinary) => {
      if (socket.readyState !== socket.OPEN) return;
      // Replies count against the send buffer like pose frames do: a client that sends and never
      // reads would otherwise make the server hold every reply (pongs echo what they are sent).
      const { maxBufferedBytes } = this.services.apiConfig().websocket;
      if (socket.bufferedAmount > maxBufferedBytes) {
        this.counters.slowClientsClosed++;
        this.clients.delete(client);
        socket.close(CloseCodes.slowClient, `client too slow: ${socket.bufferedAmount} bytes of replies unread`);
        return;
      }
      try {
        this.#onMessage(client, isBinary ? null : data.toString());
      } catch (error) {
        // A bug must cost one answer, never the process.
        this.services.host.logger.error('websocket message failed', { error: String(error) });
        this.#error(client, 'SYSTEM_ERROR', 'the message could not be handled');
      }
    });
    socket.on('close', (code, reason) => {
      this.#log.debug('websocket closed', { client_id: client.id, code, reason: reason.toString(), skipped_frames: client.skippedFrames });
      this.clients.delete(client);
      this.#release(ip);
    });
    socket.on('error', () => undefined);
    const ws = this.services.apiConfig().websocket;
    this.#send(client, {
      type: 'connection_established',
      client_id: client.id,
      server_time: new Date().toISOString(),
      supported_protocols: SUPPORTED_PROTOCOLS,
      channels: CHANNELS,
      limits: { max_subscriptions: ws.maxSubscriptionsPerClient, max_buffered_bytes: ws.maxBufferedBytes, max_skipped_frames: ws.maxSkippedFrames, system_status_interval_ms: ws.systemStatusIntervalMs },
      convention: this.services.convention(),
    });
  };

  /** Start fan-out and timers. */
  start(): void {
    if (this.#unsubscribeHub) return;
    this.#unsubscribeHub = this.services.hub.subscribe({ frame: (frame, at) => this.#onFrame(frame, at), alert: (alert) => this.#onAlert(alert), sensing: (frame) => this.#onSensing(frame) });
    const ws = this.services.apiConfig().websocket;
    this.#statusTimer = setInterval(() => this.broadcastStatus(), ws.systemStatusIntervalMs);
    this.#statusTimer.unref();
    this.#heartbeatTimer = setInterval(() => {
      for (const client of this.clients) {
        if (!client.alive) {
          client.socket.terminate();
          continue;
        }
        client.alive = false;
        client.socket.ping();
      }
    }, 30_000);
    this.#heartbeatTimer.unref();
    // A connection lives longer than the check of its upgrade: revoked tokens and keys close it within the same delay as HTTP.
    const recheckMs = Math.max(500, this.services.apiConfig().auth.revocationCheckSeconds * 1000);
    this.#revocationTimer = setInterval(() => void this.recheckCredentials(), recheckMs);
    this.#revocationTimer.unref();
  }

  stop(): void {
    this.#unsubscribeHub?.();
    this.#unsubscribeHub = undefined;
    if (this.#statusTimer) clearInterval(this.#statusTimer);
    if (this.#heartbeatTimer) clearInterval(this.#heartbeatTimer);
    if (this.#revocationTimer) clearInterval(this.#revocationTimer);
  }

  /** Authenticate every connected client again; close those whose credentials no longer verify (4001) or lost the viewer role. */
  async recheckCredentials(): Promise<void> {
    for (const client of [...this.clients]) {
      let principal: Principal | undefined;
      try {
        principal = await this.services.host.hooks.authenticate.promise(client.credentials);
      } catch (error) {
        // Storage unreachable: keep the connection rather than drop everyone; the next check decides.
        this.#log.warn('websocket credential check failed', { error: String(error) });
        continue;
      }
      if (principal && hasRole(principal.roles, 'viewer')) {
        client.principal = principal;
        continue;
      }
      this.#log.debug('websocket closed: credentials revoked', { client_id: client.id });
      this.clients.delete(client);
      client.socket.close(CloseCodes.credentialsRevoked, 'credentials revoked or expired');
    }
  }

  #send(client: Client, message: unknown): void {
    if (client.socket.readyState !== client.socket.OPEN) return;
    client.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
    this.counters.messagesSent++;
  }

  #error(client: Client, code: string, message: string, details: Record<string, unknown> = {}, requestId?: string): void {
    this.counters.badMessages++;
    this.#send(client, { type: 'error', code, message, details, ...(requestId ? { request_id: requestId } : {}), timestamp: new Date().toISOString() });
  }

  #onMessage(client: Client, text: string | null): void {
    if (text === null) return this.#error(client, 'VALIDATION_ERROR', 'binary messages are not accepted; send JSON text');
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return this.#error(client, 'VALIDATION_ERROR', 'the message is not valid JSON');
    }
    const parsed = ClientMessage.safeParse(raw);
    // Read before validation so errors can carry it; only one the schema would accept (≤ 128 characters) is echoed.
    const sentId = (raw as { request_id?: unknown })?.request_id;
    const requestId = typeof sentId === 'string' && sentId.length <= MAX_REQUEST_ID ? sentId : undefined;
    if (!parsed.success) {
      const type = (raw as { type?: unknown })?.type;
      const known = ['subscribe', 'unsubscribe', 'ping'];
      const message = typeof type !== 'string' ? 'the message needs a string "type"' : !known.includes(type) ? `unknown message type "${type}" (subscribe, unsubscribe, ping)` : `invalid ${type} message`;
      return this.#error(client, 'VALIDATION_ERROR', message, { field_errors: parsed.error.issues.map((i) => ({ field: i.path.join('.') || 'type', reason: i.message })) }, requestId);
    }
    const msg = parsed.data;
    switch (msg.type) {
      case 'ping':
        this.#send(client, { type: 'pong', timestamp: new Date().toISOString(), ...(msg.timestamp !== undefined ? { client_timestamp: msg.timestamp } : {}), ...(requestId ? { request_id: requestId } : {}) });
        return;
      case 'unsubscribe': {
        if (!client.subscriptions.delete(msg.subscription_id)) return this.#error(client, 'RESOURCE_NOT_FOUND', `no subscription ${msg.subscription_id}`, {}, requestId);
        this.#send(client, { type: 'unsubscribed', subscription_id: msg.subscription_id, ...(requestId ? { request_id: requestId } : {}) });
        return;
      }
      case 'subscribe': {
        const max = this.services.apiConfig().websocket.maxSubscriptionsPerClient;
        if (client.subscriptions.size >= max) return this.#error(client, 'RATE_LIMIT_EXCEEDED', `at most ${max} subscriptions per connection`, { limit: max }, requestId);
        const schema = msg.channel === 'pose_updates' ? PoseFilters : msg.channel === 'sensing_updates' ? SensingFilters : AlertFilters;
        const filters = schema.safeParse(msg.filters);
        if (!filters.success) {
          return this.#error(client, 'VALIDATION_ERROR', `invalid filters for ${msg.channel}`, { field_errors: filters.error.issues.map((i) => ({ field: ['filters', ...i.path.map(String), ...('keys' in i ? [(i as { keys: string[] }).keys.join(',')] : [])].join('.'), reason: i.message })) }, requestId);
        }
        const id = randomUUID();
        const subscription: Subscription =
          msg.channel === 'pose_updates'
            ? { id, channel: 'pose_updates', filters: filters.data as z.output<typeof PoseFilters>, key: JSON.stringify(filters.data), skipped: 0 }
            : msg.channel === 'sensing_updates'
              ? { id, channel: 'sensing_updates', filters: filters.data as z.output<typeof SensingFilters>, skipped: 0 }
              : { id, channel: 'alerts', filters: filters.data as z.output<typeof AlertFilters> };
        client.subscriptions.set(id, subscription);
        this.#send(client, { type: 'subscription_confirmed', channel: msg.channel, subscription_id: id, filters_applied: filters.data, ...(requestId ? { request_id: requestId } : {}) });
      }
    }
  }

  #onFrame(frame: PoseFrame, outputAt: number): void {
    if (!this.clients.size) return;
    const convention: Convention = this.services.convention();
    const { maxBufferedBytes, maxSkippedFrames } = this.services.apiConfig().websocket;
    const timestamp = new Date(frame.timestamp).toISOString();
    // Serialise each distinct filter set once per frame; only the subscription id differs per client.
    const dataByKey = new Map<string, string>();
    for (const client of this.clients) {
      for (const sub of client.subscriptions.values()) {
        if (sub.channel !== 'pose_updates') continue;
        const f = sub.filters;
        if (f.environment_id !== undefined && f.environment_id !== frame.environmentId) continue;
        if (client.socket.bufferedAmount > maxBufferedBytes) {
          client.skippedFrames++;
          client.skippedInRow++;
          sub.skipped++;
          this.counters.framesSkipped++;
          if (client.skippedInRow >= maxSkippedFrames) {
            this.counters.slowClientsClosed++;
            client.socket.close(CloseCodes.slowClient, `client too slow: ${client.skippedInRow} frames skipped in a row`);
            this.clients.delete(client);
            break;
          }
          continue;
        }
        let data = dataByKey.get(sub.key);
        if (data === undefined) {
          const options = { minConfidence: f.min_confidence, personIds: f.person_ids, includeKeypoints: f.include_keypoints, includeDensePose: f.include_dense_pose };
          const shaped = convention === 'A' ? frameA(frame, options) : frameB(frame, options);
          data = JSON.stringify({ frame_id: shaped.frame_id, environment_id: frame.environmentId, persons: shaped.persons, metadata: shaped.metadata });
          dataByKey.set(sub.key, data);
        }
        const skipped = sub.skipped ? `,"skipped_frames":${sub.skipped}` : '';
        sub.skipped = 0;
        client.skippedInRow = 0;
        this.#send(client, `{"type":"pose_update","subscription_id":"${sub.id}","timestamp":"${timestamp}"${skipped},"data":${data}}`);
        this.onDelivered?.(performance.now() - outputAt);
      }
    }
  }

  /**
   * A sensing frame (one second of a room or link): sent to the subscriptions whose room and scope it matches.
   * A slow client skips it, counted like a pose frame: the subscription's next sensing_update says how many
   * seconds it missed (`skipped_seconds`). Sensing seconds never close a connection (one a second per room).
   */
  #onSensing(frame: SensingFrame): void {
    if (!this.clients.size) return;
    const { maxBufferedBytes } = this.services.apiConfig().websocket;
    let data: string | undefined;
    for (const client of this.clients) {
      for (const sub of client.subscriptions.values()) {
        if (sub.channel !== 'sensing_updates') continue;
        const f = sub.filters;
        if (f.environment_id !== undefined && f.environment_id !== frame.environmentId) continue;
        if (f.scope !== 'any' && f.scope !== frame.scope) continue;
        if (client.socket.bufferedAmount > maxBufferedBytes) {
          sub.skipped++;
          client.skippedSensing++;
          this.counters.sensingSkipped++;
          continue;
        }
        data ??= JSON.stringify(toSensingRecord(frame));
        const skipped = sub.skipped ? `,"skipped_seconds":${sub.skipped}` : '';
        sub.skipped = 0;
        this.#send(client, `{"type":"sensing_update","subscription_id":"${sub.id}","timestamp":"${new Date(frame.time).toISOString()}"${skipped},"data":${data}}`);
      }
    }
  }

  #onAlert(alert: Alert): void {
    const record = streamAlertRecord(alert);
    for (const client of this.clients) {
      for (const sub of client.subscriptions.values()) {
        if (sub.channel !== 'alerts') continue;
        const f = sub.filters;
        if (f.alert_types?.length && !f.alert_types.includes(alert.alertType)) continue;
        if (f.severity?.length && !f.severity.includes(alert.severity)) continue;
        if (f.environment_id !== undefined && f.environment_id !== alert.environmentId) continue;
        this.#send(client, { type: 'alert', subscription_id: sub.id, ...record });
      }
    }
  }

  /** The system_status message (real figures from the hub, engine and process). */
  statusMessage(): Record<string, unknown> {
    const { system, hub } = this.services;
    const nodes = system.components();
    const failing = nodes.some(nodeFailing);
    const health = !system.running ? 'stopped' : failing ? 'degraded' : 'healthy';
    const r = this.services.resources.snapshot();
    return {
      type: 'system_status',
      timestamp: new Date().toISOString(),
      status: {
        processing_fps: hub.framesPerSecond(),
        active_persons: hub.activePersons(),
        system_health: health,
        gpu_utilization: null,
        system_state: system.state,
        cpu_usage: r.cpuUsage,
        memory_usage: r.memoryUsage,
        connected_clients: this.clients.size,
        frames_skipped_total: this.counters.framesSkipped,
        sensing_skipped_total: this.counters.sensingSkipped,
      },
    };
  }

  /** Send system_status to every client (also on the timer); each gets its own skipped count. */
  broadcastStatus(): void {
    if (!this.clients.size) return;
    const base = this.statusMessage();
    for (const client of this.clients) {
      this.#send(client, { ...base, status: { ...(base.status as object), client_skipped_frames: client.skippedFrames, client_skipped_sensing: client.skippedSensing } });
    }
  }
}

/**
 * The spec's websocket alert: the same record MQTT and webhooks carry (`toAlertRecord`), with the
 * data fields the spec lists for the stream always present (null when the alert has none).
 */
function streamAlertRecord(alert: Alert): AlertRecord {
  const record = toAlertRecord(alert);
  const data = record.data;
  return {
    ...record,
    data: {
      ...data,
      person_id: (data.person_id as number | undefined) ?? null,
      location: (data.location as { x: number; y: number } | undefined) ?? null,
      confidence: (data.confidence as number | undefined) ?? null,
      video_clip_url: (data.video_clip_url as string | undefined) ?? null,
    },
  };
}
