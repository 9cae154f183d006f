
import { flowInterface, parseInputText, undeclaredInputProblem, WiflowError, type Logger, type FlowData, type FlowInput, type FlowOutput, type FlowRecord, type Job, type JobSnapshot, type MessageRecord } from '@wiflow/core';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import type { FileStore } from '../files/file-store.js';
import { asFlowData, mergeFlowSecrets } from '../flows/flow-data.js';
import type { InputValueRequest } from './run-model.js';
import { applyTweaks } from './tweaks.js';

/** What starts a run. */
export interface RunRequest {
  userId: string;
  flow: FlowRecord;
  /** Graph to run instead of the stored one (build with `data`); masked secrets are filled from the stored flow. */
  data?: Record<string, unknown> | null;
  tweaks?: Record<string, unknown> | null;
  /** Langflow-style input value request. */
  inputRequest?: InputValueRequest | null;
  /** Values by io.input name (MCP arguments, wiflow `inputs`). */
  named?: Record<string, unknown> | null;
  /** File references for file inputs, in order. */
  files?: string[] | null;
  sessionId?: string | null;
  timeoutMs?: number | null;
  source: string;
  /** Only files attached to this flow may feed file inputs (public builds run as the owner for strangers). */
  filesOfFlowOnly?: boolean;
  /** Roles of the flow's owner when the caller is the owner; looked up in storage otherwise. */
  ownerRoles?: readonly string[];
  /** The caller is anonymous (MCP with `auth_type: none`): the run gets no capabilities and none of the owner's files. */
  anonymous?: boolean;
}

/** A started run: the job and what is needed to shape its result. */
export interface StartedRun {
  job: Job;
  flow: FlowRecord;
  data: FlowData;
  sessionId: string;
  inputValue: string | null;
}

/** A Langflow `input_value` (text) read as the kind its input declares; 422 naming the field when it does not parse. */
function coerce(input: FlowInput, value: string): unknown {
  const parsed = parseInputText(input, value);
  if ('error' in parsed) throw StudioErrors.invalidBody(`inputs.${input.name}: ${parsed.error}`);
  return parsed.value;
}

/** Runs stored flows as jobs: tweaks, inputs (files resolved), limits and timeouts; shapes results and stores messages. */
export class FlowRunner {
  readonly #log: Logger;

  constructor(private readonly studio: StudioContext, private readonly files: FileStore) {
    this.#log = studio.logger.child('studio.runs');
  }

  /** Work out the job inputs of a run from its request. */
  async inputsFor(userId: string, data: FlowData, request: Pick<RunRequest, 'inputRequest' | 'named' | 'files'> & { onlyFlowId?: string }): Promise<Record<string, unknown>> {
    const inputs: Record<string, unknown> = {};
    const iface = flowInterface(data);
    const declared = iface.inputs;
    const ir = request.inputRequest;
    if (ir && ir.input_value != null) {
      const components = ir.components ?? [];
      const type = ir.type ?? 'any';
      const candidates = declared.filter((i) => i.valueType !== 'file' && (!components.length || components.includes(i.nodeId) || components.includes(i.name)));
      // chat/text values go to text inputs; a flow without any takes them in its other inputs (coerced).
      const textOnly = type !== 'any' && candidates.some((i) => i.valueType === 'text');
      for (const input of candidates) {
        if (textOnly && input.valueType !== 'text') continue;
        inputs[input.name] = coerce(input, ir.input_value);
      }
    }
    const fileInputs = declared.filter((i) => i.valueType === 'file');
    (request.files ?? []).forEach((ref, i) => {
      if (fileInputs[i]) inputs[fileInputs[i].name] = ref;
    });
    for (const [name, value] of Object.entries(request.named ?? {})) {
      const undeclared = undeclaredInputProblem(iface, name);
      if (undeclared) throw StudioErrors.invalidBody(`inputs.${name}: ${undeclared}`);
      inputs[name] = value;
    }
    for (const input of fileInputs) {
      if (inputs[input.name] !== undefined) inputs[input.name] = await this.files.resolveReference(userId, inputs[input.name], `inputs.${input.name}`, request.onlyFlowId);
    }
    return inputs;
  }

  /** Prepare and submit a run; errors (bad tweaks, bad inputs, invalid flow) are thrown before any job exists. */
  async start(request: RunRequest): Promise<StartedRun> {
    const access = request.anonymous ? await this.studio.anonymousRunAccess(request.userId) : await this.studio.runAccess(request.flow.userId ?? request.userId, request.ownerRoles);
    this.#checkJobQuota(request.userId);
    const stored = request.flow.data;
    const raw = request.data ? mergeFlowSecrets(this.studio.flows, request.data, stored) : stored;
    if (!raw) throw StudioErrors.invalidFlow(1);
    const tweaked = applyTweaks(this.studio.flows, asFlowData(raw), request.tweaks);
    const inputs = await this.inputsFor(request.userId, tweaked, { ...request, onlyFlowId: request.filesOfFlowOnly ? request.flow.id : undefined });
    // Bindings are checked and applied by the compiler inside runJob, as for `wiflow run`.
    const sessionId = request.sessionId || request.inputRequest?.session || request.flow.id;
    const limit = this.studio.config.maxRunTimeoutMs;
    const timeoutMs = request.timeoutMs ? Math.min(request.timeoutMs, limit) : undefined;
    let job: Job;
    try {
      job = await this.studio.flows.runJob(tweaked, { access, inputs, timeoutMs, flowId: request.flow.id, flowName: request.flow.name, userId: request.userId, labels: { session_id: sessionId, source: request.source } });
    } catch (error) {
      if (error instanceof WiflowError && error.code === 'WIFLOW_FLOW_INVALID') {
        const mapped = StudioErrors.invalidFlow(((error.details?.problems as unknown[]) ?? []).length);
        Object.assign(mapped, { details: error.details });
        throw mapped;
      }
      throw error;
    }
    const inputValue = request.inputRequest?.input_value ?? null;
    return { job, flow: request.flow, data: tweaked, sessionId, inputValue };
  }

  /** 429 when the user (or everyone together) already has as many unfinished jobs as `studio.quotas` allows. */
  #checkJobQuota(userId: string): void {
    const { jobsPerUser, jobsTotal } = this.studio.config.quotas;
    const active = this.studio.flows.jobs.active();
    const mine = active.filter((job) => job.request.userId === userId).length;
    if (mine >= jobsPerUser) throw StudioErrors.quotaExceeded(`You have ${mine} unfinished jobs, the most one user may have (studio.quotas.jobsPerUser = ${jobsPerUser}); wait for one to end or cancel one`);
    if (active.length >= jobsTotal) throw StudioErrors.quotaExceeded(`The server has ${active.length} unfinished jobs, the most it takes (studio.quotas.jobsTotal = ${jobsTotal}); try again later`);
  }

  /** Store the caller's text input as a User message of the session (null when there is none to store). */
  async recordInput(run: StartedRun): Promise<MessageRecord | null> {
    if (run.inputValue == null || !this.studio.hasStorage) return null;
    return this.studio.storage.messages.append({ flowId: run.flow.id, sessionId: run.sessionId, sender: 'User', senderName: 'User', text: run.inputValue, properties: { job_id: run.job.id } });
  }

  /** The io.output nodes a result covers: all, or those named (node id or output name) in `filter`. */
  selectedOutputs(run: StartedRun, filter?: string[] | null): FlowOutput[] {
    const wanted = (filter ?? []).filter(Boolean);
    return flowInterface(run.data).outputs.filter((o) => !wanted.length || wanted.includes(o.nodeId) || wanted.includes(o.name));
  }

  /**
   * Wait for the run and shape Langflow's RunOutputs: one ResultData per io.output node
   * (`outputs` filters by node id or output name), ChatOutputResponse and a stored
   * MessageRead for every text value. `messageIds` gives the ids the text values of an output
   * are stored under, in order (a stream announced them in its token events).
   */
  async result(run: StartedRun, filter?: string[] | null, options: { messageIds?: Record<string, string[]> } = {}): Promise<{ snapshot: JobSnapshot; runOutputs: Record<string, unknown>; messages: MessageRecord[] }> {
    const snapshot = await run.job.done;
    // Runs that do not complete are worth an operator's look (GET /logs shows them); completed ones are not noise-free enough for info.
    if (snapshot.status !== 'completed') this.#log.warn(`run ${snapshot.status}`, { flow_id: run.flow.id, job_id: snapshot.id, source: snapshot.labels.source ?? null, error: snapshot.error });
    const outputs = this.selectedOutputs(run, filter);
    const messages: MessageRecord[] = [];
    const results = [];
    for (const output of outputs) {
      const value = snapshot.outputs[output.name];
      const texts = typeof value === 'string' ? [value] : Array.isArray(value) && value.length && value.every((v) => typeof v === 'string') ? (value as string[]) : [];
      const ids = options.messageIds?.[output.name] ?? [];
      const chat = [];
      for (const [i, text] of texts.entries()) {
        const stored = this.studio.hasStorage
          ? await this.studio.storage.messages.append({ id: ids[i], flowId: run.flow.id, sessionId: run.sessionId, sender: 'Machine', senderName: 'AI', text, properties: { job_id: run.job.id, component_id: output.nodeId } })
          : null;
        if (stored) messages.push(stored);
        chat.push({ message: text, type: 'text', component_id: output.nodeId, session_id: run.sessionId, stream_url: null, files: [], sender: 'Machine', sender_name: 'AI' });
      }
      results.push({
        component_id: output.nodeId,
        component_display_name: output.title,
        results: { [output.name]: value ?? null },
        // `message` repeats a text value where Langflow's OutputValue has it, so clients' chatOutputText() finds it.
        outputs: { [output.name]: { type: texts.length ? 'message' : 'data', status: snapshot.status, content: value ?? null, metadata: { collect: output.collect }, ...(typeof value === 'string' ? { message: value } : {}) } },
        messages: chat,
        logs: {},
      });
    }
    return { snapshot, runOutputs: { inputs: { input_value: run.inputValue }, outputs: results }, messages };
  }
}

