import type { DeploymentInfo } from '../api/studio';
import { QUIET_MS, type EnvironmentSilence } from '../live/environment-status';

/** A deployment as the notice names it: its flow's name, and its id's start to tell two apart. */
function deploymentName(d: DeploymentInfo): string {
  return `${d.flow_name ?? d.flow_id ?? 'a flow'} (deployment ${d.id.slice(0, 8)})`;
}

/** Links to the flows in the editor (each once), else to the flows list. */
function FlowLinks({ flows, verb }: { flows: { id: string; name: string }[]; verb: string }) {
  if (!flows.length)
    return (
      <>
        {' '}
        <a href="#/flows" data-testid="live-notice-open-flow">
          Open the flows list
        </a>{' '}
        to deploy the flow that writes it (no stored flow names it in a node).
      </>
    );
  return (
    <>
      {' '}
      Open{' '}
      {flows.map((f, i) => (
        <span key={f.id}>
          {i ? ' or ' : ''}
          <a href={`#/flows/${f.id}`} data-testid="live-notice-open-flow">
            {f.name}
          </a>
        </span>
      ))}{' '}
      in the editor {verb}.
    </>
  );
}

/** The flows of deployments, each once (a deployment without a stored flow has none). */
function flowsOf(writers: DeploymentInfo[]): { id: string; name: string }[] {
  const out = new Map<string, string>();
  for (const d of writers) if (d.flow_id && !out.has(d.flow_id)) out.set(d.flow_id, d.flow_name ?? d.flow_id);
  return [...out].map(([id, name]) => ({ id, name }));
}

/**
 * Why the chosen environment shows nothing — its deployments stopped or failed (with the stored
 * error), none writes it, or it runs without frames — with the way back: the flow in the editor,
 * or all environments.
 */
export function EnvironmentNotice({ silence, onShowAll }: { silence: EnvironmentSilence; onShowAll: () => void }) {
  const { environment } = silence;
  let body;
  if (silence.state === 'waiting') {
    body = (
      <>
        Waiting for frames from <strong>{environment}</strong>: {silence.writers.map(deploymentName).join(', ')} {silence.writers.length > 1 ? 'run' : 'runs'} but sent no frame for{' '}
        {QUIET_MS / 1000} s (a source that waits for its device, or a flow whose frames end before pose.publish).
        {flowsOf(silence.writers).length ? <FlowLinks flows={flowsOf(silence.writers)} verb="to see its counters" /> : null}
      </>
    );
  } else if (silence.state === 'absent') {
    body = (
      <>
        Nothing to show for <strong>{environment}</strong>: no deployment writes it (it was undeployed, or the server restarted since).
        {silence.flows ? <FlowLinks flows={silence.flows.map((f) => ({ id: f.id, name: f.name }))} verb="to deploy it again" /> : null}
      </>
    );
  } else {
    body = (
      <>
        Nothing to show for <strong>{environment}</strong>: its pipeline {silence.state === 'failed' ? 'failed' : 'stopped'}.
        {silence.writers.map((d) => (
          <span key={d.id} data-testid="live-notice-deployment">
            {' '}
            {deploymentName(d)} {d.status === 'failed' ? `failed: ${d.error ?? 'no reason stored'}` : 'stopped'}.
          </span>
        ))}
        <FlowLinks flows={flowsOf(silence.writers)} verb="to deploy it again" />
      </>
    );
  }
  return (
    <div className="wf-warning wf-live-notice" role="status" data-testid="live-environment-notice" data-state={silence.state} data-environment={environment}>
      <span>{body}</span>{' '}
      <button type="button" data-testid="live-notice-show-all" onClick={onShowAll}>
        show all environments
      </button>{' '}
      <span className="muted">or pick another environment above.</span>
    </div>
  );
}
