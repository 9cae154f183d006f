import { describe, expect, it } from 'vitest';
import type { DeploymentInfo, RoomInfo } from '../api/studio';
import { environmentSilence, type EnvironmentFacts, type StoredFlow } from './environment-status';

const ward = (id: string, environment: string | null, status: DeploymentInfo['status'], error: string | null = null): DeploymentInfo => ({
  id,
  flow_id: `flow-${id}`,
  flow_name: `Ward ${id}`,
  status,
  error,
  environment_id: environment,
});
const room = (environment: string, deploymentId: string): RoomInfo => ({ environment_id: environment, deployment_id: deploymentId, flow_id: null, width: 5, depth: 4, radios: [], zones: [], source: 'sim (sim.source): scenario home.yaml' });
const flow = (id: string, environmentId: string): StoredFlow => ({
  id,
  name: `Flow ${id}`,
  data: { nodes: [{ id: 'sim', type: 'wiflow', position: { x: 0, y: 0 }, data: { nodeType: 'sim.source', config: { environmentId } } }], edges: [] },
});
const facts = (over: Partial<EnvironmentFacts>): EnvironmentFacts => ({ environment: 'ward-b', deployments: [], rooms: [], flows: [], framesArrived: false, quiet: false, ...over });

describe('why the chosen environment shows nothing', () => {
  it('says nothing for all environments, or while a running writer is within the quiet time', () => {
    expect(environmentSilence(facts({ environment: null, deployments: [ward('b', 'ward-b', 'failed', 'boom')] }))).toBeNull();
    expect(environmentSilence(facts({ deployments: [ward('b', 'ward-b', 'running')] }))).toBeNull();
  });

  it('names the running writer when no frame came for the quiet time', () => {
    const silence = environmentSilence(facts({ deployments: [ward('a', 'ward-a', 'running'), ward('b', 'ward-b', 'running')], quiet: true, framesArrived: true }));
    expect(silence).toMatchObject({ state: 'waiting', environment: 'ward-b', writers: [{ id: 'b' }] });
  });

  it('names a stopped writer at once, and a failed one with its stored error', () => {
    expect(environmentSilence(facts({ deployments: [ward('b', 'ward-b', 'stopped')] }))).toMatchObject({ state: 'stopped', writers: [{ id: 'b', status: 'stopped' }] });
    expect(environmentSilence(facts({ deployments: [ward('b', 'ward-b', 'stopped'), ward('b2', 'ward-b', 'failed', 'node sim: ENOENT')] }))).toMatchObject({
      state: 'failed',
      writers: [{ id: 'b' }, { id: 'b2', error: 'node sim: ENOENT' }],
    });
  });

  it('counts a deployment as a writer through its room when its flow names the environment only in a scenario file', () => {
    const silence = environmentSilence(facts({ environment: 'home', deployments: [ward('s', null, 'failed', 'node sim: bad file')], rooms: [room('home', 's')] }));
    expect(silence).toMatchObject({ state: 'failed', environment: 'home', writers: [{ id: 's' }] });
  });

  it('counts a deployment whose flow writes several environments as a writer of each', () => {
    const both: DeploymentInfo = { ...ward('ab', 'ward-a', 'failed', 'node sim2: ENOENT'), environment_ids: ['ward-a', 'ward-b'] };
    expect(environmentSilence(facts({ environment: 'ward-b', deployments: [both] }))).toMatchObject({ state: 'failed', writers: [{ id: 'ab' }] });
    expect(environmentSilence(facts({ environment: 'ward-b', deployments: [{ ...both, status: 'running' }] }))).toBeNull();
  });

  it('prefers a running writer over an ended one (deployed again after a failure)', () => {
    expect(environmentSilence(facts({ deployments: [ward('old', 'ward-b', 'failed', 'x'), ward('new', 'ward-b', 'running')] }))).toBeNull();
  });

  it('says no deployment writes it, naming the stored flows that do', () => {
    const silence = environmentSilence(facts({ deployments: [ward('a', 'ward-a', 'running')], flows: [flow('1', 'ward-a'), flow('2', 'ward-b')] }));
    expect(silence).toEqual({ state: 'absent', environment: 'ward-b', flows: [expect.objectContaining({ id: '2' })] });
    expect(environmentSilence(facts({ environment: 'gone' }))).toEqual({ state: 'absent', environment: 'gone', flows: [] });
    expect(environmentSilence(facts({ environment: 'gone', flows: null }))).toEqual({ state: 'absent', environment: 'gone', flows: null });
  });

  it('lets frames that do arrive win over the lists until they stop', () => {
    expect(environmentSilence(facts({ framesArrived: true }))).toBeNull();
    expect(environmentSilence(facts({ framesArrived: true, quiet: true }))).toMatchObject({ state: 'absent' });
  });
});
