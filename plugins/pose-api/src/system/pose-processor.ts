import { randomUUID } from 'node:crypto';
import { arePortsCompatible, WiflowError, type CsiFrame, type FlowData, type FlowEdge, type FlowNode, type PoseFrame } from '@wiflow/core';
import type { PoseApiHost } from '../host.js';
import type { ApiConfig } from '../config.js';
import { ApiErrors } from '../errors.js';

/** One CSI packet as POST /pose/process receives it (spec: csi_data). */
export interface SubmittedCsi {
  timestamp: string;
  antenna_data: { real: number; imag: number }[][];
  metadata?: { router_id?: string; sampling_rate?: number; signal_strength?: number; receiver_id?: string; tx_count?: number; subcarrier_indices?: number[]; center_frequency_hz?: number };
}

/** Options of POST /pose/process (spec: processing_options). */
export interface ProcessingOptions {
  confidence_threshold?: number;
  max_persons?: number;
  enable_tracking?: boolean;
  return_dense_pose?: boolean;
}

/** What the processor returns. */
export interface ProcessingOutcome {
  processingId: string;
  processingTimeMs: number;
  frames: PoseFrame[];
  nodeTypes: string[];
}

/**
 * Turns submitted CSI into CsiFrames (antenna_data is [receive antenna][subcarrier], one
 * transmit stream) and runs them as a job through the configured chain of registered node
 * types: io.input → chain → (tracker) → io.output.
 */
export class PoseProcessor {
  /**
   * The error a node of a job threw, by job id: a chain that refuses the submitted CSI (a
   * frame that does not fit its link's empty-room reference, a link no room has) fails the job
   * with a coded error naming the link and field, which the caller must get as it is.
   */
  readonly #nodeErrors = new Map<string, unknown>();

  constructor(private readonly host: Pick<PoseApiHost, 'flows' | 'hooks'>, private readonly config: () => ApiConfig) {
    host.hooks.nodeError.tap('pose-api:process', (event) => {
      // A job fails on its first node error; keep that one, and only the latest jobs'.
      if (this.#nodeErrors.has(event.runId)) return;
      this.#nodeErrors.set(event.runId, event.error);
      if (this.#nodeErrors.size > MAX_KEPT_NODE_ERRORS) this.#nodeErrors.delete(this.#nodeErrors.keys().next().value!);
    });
  }

  /** Node types of the chain for these options, and which of them are not installed. */
  plan(enableTracking: boolean): { types: string[]; missing: string[] } {
    const { chain, tracker } = this.config().processing;
    const types = enableTracking ? [...chain, tracker] : [...chain];
    return { types, missing: types.filter((t) => !this.host.flows.registry.has(t)) };
  }

  /** Build the canonical frames of the submission (shape errors become 422 with the field). */
  static toFrames(packets: SubmittedCsi[]): CsiFrame[] {
    return packets.map((packet, index) => {
      const rows = packet.antenna_data.length;
      const nsc = packet.antenna_data[0]?.length ?? 0;
      const ntx = packet.metadata?.tx_count ?? 1;
      const field = `csi_data[${index}]`;
      if (rows === 0 || nsc === 0) throw ApiErrors.validation([{ field: `${field}.antenna_data`, message: 'needs at least one antenna with one subcarrier', received: packet.antenna_data }]);
      if (rows % ntx !== 0) throw ApiErrors.validation([{ field: `${field}.metadata.tx_count`, message: `antenna_data has ${rows} rows, not a multiple of tx_count`, received: ntx }]);
      const indices = packet.metadata?.subcarrier_indices;
      if (indices && indices.length !== nsc) throw ApiErrors.validation([{ field: `${field}.metadata.subcarrier_indices`, message: `needs ${nsc} indices, one per column`, received: indices.length }]);
      const re = new Float32Array(rows * nsc);
      const im = new Float32Array(rows * nsc);
      packet.antenna_data.forEach((row, r) => {
        if (row.length !== nsc) throw ApiErrors.validation([{ field: `${field}.antenna_data[${r}]`, message: `every antenna must have ${nsc} subcarriers like the first`, received: row.length }]);
        row.forEach((value, sc) => {
          re[r * nsc + sc] = value.real;
          im[r * nsc + sc] = value.imag;
        });
      });
      const time = Date.parse(packet.timestamp);
      const half = Math.floor(nsc / 2);
      const tx = packet.metadata?.router_id ?? 'router';
      const rx = packet.metadata?.receiver_id ?? 'api';
      const nrx = rows / ntx;
      return {
        timestamp: time * 1000,
        time,
        sourceId: `${tx}>${rx}`,
        link: { tx, rx },
        centerFrequencyHz: packet.metadata?.center_frequency_hz ?? null,
        bandwidthHz: null,
        subcarriers: indices ? Int16Array.from(indices) : Int16Array.from({ length: nsc }, (_, i) => i - half),
        ntx,
        nrx,
        nsc,
        csi: { re, im },
        rssi: packet.metadata?.signal_strength !== undefined ? Array(nrx).fill(packet.metadata.signal_strength) : undefined,
        format: 'wiflow',
        provenance: 'replay',
        extra: { samplingRate: packet.metadata?.sampling_rate ?? null, submittedVia: 'POST /pose/process' },
      } satisfies CsiFrame;
    });
  }

  /** Wire the chain into a job flow, port by port (first compatible output → input). */
  buildFlow(types: string[]): FlowData {
    const nodes: FlowNode[] = [{ id: 'input', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', config: { name: 'csi', valueType: 'json' } } }];
    const edges: FlowEdge[] = [];
    const nodeConfig = this.config().processing.nodeConfig;
    let previous = { id: 'input', port: 'value', spec: { type: 'any' } as { type: string | readonly string[] } };
    types.forEach((type, i) => {
      const definition = this.host.flows.registry.get(type)!;
      const input = Object.entries(definition.inputs).find(([, spec]) => arePortsCompatible(previous.spec, spec));
      if (!input) throw ApiErrors.modelUnavailable([`${type} (no input accepts ${JSON.stringify(previous.spec.type)})`]);
      const id = `n${i}`;
      nodes.push({ id, position: { x: (i + 1) * 200, y: 0 }, data: { nodeType: type, config: nodeConfig[type] ?? {} } });
      edges.push({ id: `e${i}`, source: previous.id, sourceHandle: previous.port, target: id, targetHandle: input[0] });
      const output = Object.entries(definition.outputs).find(([, spec]) => arePortsCompatible(spec, { type: 'PoseFrame' })) ?? Object.entries(definition.outputs)[0];
      if (!output) throw ApiErrors.modelUnavailable([`${type} (has no output)`]);
      previous = { id, port: output[0], spec: output[1] };
    });
    nodes.push({ id: 'output', position: { x: (types.length + 1) * 200, y: 0 }, data: { nodeType: 'io.output', config: { name: 'poses', collect: 'all' } } });
    edges.push({ id: 'e_out', source: previous.id, sourceHandle: previous.port, target: 'output', targetHandle: 'value' });
    return { nodes, edges };
  }

  /** Run the submission; 503 when a node type is missing, 422/500/504 on failures. */
  async process(packets: SubmittedCsi[], options: ProcessingOptions, userId?: string): Promise<ProcessingOutcome> {
    const { types, missing } = this.plan(options.enable_tracking ?? false);
    if (missing.length) throw ApiErrors.modelUnavailable(missing);
    const frames = PoseProcessor.toFrames(packets);
    const flow = this.buildFlow(types);
    // io.input emits the list once; the chain's first node must accept frames one by one,
    // so a feeder splits it: the job input is each frame in turn through a json list.
    const started = performance.now();
    const timeoutMs = this.config().processing.timeoutMs;
    let job;
    try {
      job = await this.host.flows.runJob(splitInput(flow), { inputs: { csi: frames }, timeoutMs, userId, labels: { source: 'POST /pose/process' }, stored: false });
    } catch (error) {
      // The chain does not compile (bad node config in api.processing.nodeConfig, port types).
      const problems = (error as { details?: { problems?: { message?: string }[] } }).details?.problems;
      throw ApiErrors.processingMisconfigured(problems?.map((p) => p.message).join('; ') ?? (error as Error).message);
    }
    const result = await job.done;
    const nodeError = this.#nodeErrors.get(job.id);
    this.#nodeErrors.delete(job.id);
    const processingTimeMs = performance.now() - started;
    if (result.status === 'timed_out') throw ApiErrors.timeout(timeoutMs);
    // The submitted CSI was refused (4xx from the node: 422 with its code, link and field), not a failure of the server.
    if (result.status === 'failed' && nodeError instanceof WiflowError && nodeError.status >= 400 && nodeError.status < 500) throw nodeError;
    if (result.status !== 'completed') throw ApiErrors.modelFailed(result.error ?? result.status);
    const all = ((result.outputs.poses as unknown[] | undefined) ?? []).filter((v): v is PoseFrame => typeof v === 'object' && v !== null && Array.isArray((v as PoseFrame).persons));
    const threshold = options.confidence_threshold ?? 0;
    const max = options.max_persons ?? Number.POSITIVE_INFINITY;
    const shaped = all.map((frame) => ({
      ...frame,
      persons: frame.persons
        .filter((p) => p.confidence >= threshold)
        .sort((a, b) => b.confidence - a.confidence)
        .slice(0, max)
        .map((p) => (options.return_dense_pose ? p : { ...p, densePose: null })),
    }));
    return { processingId: randomUUID(), processingTimeMs, frames: shaped, nodeTypes: types };
  }
}

/** Jobs whose node error is kept until their caller reads it (more only when callers are gone). */
const MAX_KEPT_NODE_ERRORS = 64;

/** Insert the `pose-api.split` node after io.input so the chain receives one frame per message. */
function splitInput(flow: FlowData): FlowData {
  const first = flow.edges[0];
  return {
    nodes: [...flow.nodes, { id: 'split', position: { x: 100, y: 100 }, data: { nodeType: 'pose-api.split', config: {} } }],
    edges: [
      { id: 'e_split_in', source: 'input', sourceHandle: 'value', target: 'split', targetHandle: 'list' },
      { ...first, source: 'split', sourceHandle: 'item' },
      ...flow.edges.slice(1),
    ],
  };
}
