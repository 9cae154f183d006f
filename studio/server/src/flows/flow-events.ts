/** Flow-editing event types (FlowEventCreate.type). */
export const FLOW_EVENT_TYPES = ['component_added', 'component_removed', 'component_configured', 'connection_added', 'connection_removed', 'flow_updated', 'flow_settled'] as const;

/** FlowEventResponse. */
export interface FlowEvent {
  type: (typeof FLOW_EVENT_TYPES)[number];
  /** Seconds since the epoch (float). */
  timestamp: number;
  summary: string;
}

/**
 * Recent flow-editing events per flow, in memory: each lives 60 s, at most 1,000 per flow
 * (Langflow's rules), so agents editing a flow can tell when it has settled.
 */
export class FlowEventStore {
  readonly #events = new Map<string, FlowEvent[]>();
  constructor(private readonly ttlSeconds = 60, private readonly maxPerFlow = 1000, private readonly settleSeconds = 10, private readonly now: () => number = () => Date.now() / 1000) {}

  /** Record an event. */
  add(flowId: string, type: FlowEvent['type'], summary: string): FlowEvent {
    const event: FlowEvent = { type, timestamp: this.now(), summary };
    const list = this.#fresh(flowId);
    list.push(event);
    if (list.length > this.maxPerFlow) list.splice(0, list.length - this.maxPerFlow);
    this.#events.set(flowId, list);
    return event;
  }

  /**
   * Events after `since` (epoch seconds) and whether the flow is settled: no events at all, a
   * flow_settled after `since`, or the newest event at least 10 s old.
   */
  list(flowId: string, since = 0): { events: FlowEvent[]; settled: boolean } {
    const all = this.#fresh(flowId);
    const events = all.filter((e) => e.timestamp > since);
    const last = all[all.length - 1];
    const settled = all.length === 0 || events.some((e) => e.type === 'flow_settled') || (last !== undefined && this.now() - last.timestamp >= this.settleSeconds);
    return { events, settled };
  }

  /** Forget a flow's events (flow deleted). */
  forget(flowId: string): void {
    this.#events.delete(flowId);
  }

  #fresh(flowId: string): FlowEvent[] {
    const cutoff = this.now() - this.ttlSeconds;
    const list = (this.#events.get(flowId) ?? []).filter((e) => e.timestamp >= cutoff);
    if (list.length) this.#events.set(flowId, list);
    else this.#events.delete(flowId);
    return list;
  }
}
