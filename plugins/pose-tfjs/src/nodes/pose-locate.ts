import { DataTypes, defineNode, WiflowError, type CsiFrame, type SensingFrame, type ServiceReader } from '@wiflow/core';
import { z } from 'zod';
import { PoseErrors } from '../errors.js';
import { PoseLocator } from '../locate/locator.js';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR } from '../locate/locator-model.js';
import { readReference, type EmptyRoomReference } from '../locate/reference.js';
import { checkFrameFitsReference, linkKey, referenceForEnvironment } from '../locate/reference-check.js';
import { REFERENCE_DESK, type ReferenceDesk } from '../locate/reference-desk.js';
import { ReferenceRefresh, RefreshSettingsSchema } from '../locate/reference-refresh.js';
import { ReferenceStaleness } from '../locate/reference-staleness.js';
import { simulateReference } from '../locate/simulated.js';
import { resolveLocatorModelFolder } from './model-files.js';
import { EnvironmentGeometrySchema, type EnvironmentGeometry } from '../model/environment.js';
import { environmentFromScenario, type ScenarioGeometry } from '../sim/environment-from-scenario.js';
import { loadSim } from '../sim/pose-dataset.js';

/** The runtime's reference desk, or null where the pose plugin's service is not registered (a bare test runtime). */
function resolveDesk(services: ServiceReader): ReferenceDesk | null {
  return services.has(REFERENCE_DESK) ? services.get(REFERENCE_DESK) : null;
}

/** Config of `pose.locate`. */
export const PoseLocateConfig = z.object({
  model: z.string().default('').describe('locator model directory (locator.json); empty = the shipped wiflow-locate-v2'),
  environments: z.array(EnvironmentGeometrySchema).default([]).describe('geometry of each environment: room, links with their antenna arrays (txArray, rxArray), virtual camera'),
  references: z.array(z.string()).default([]).describe('empty-room reference files (wiflow-empty-room/1), one per environment: `wiflow locate record` or the studio\'s Installer page records them (a recording there replaces the file)'),
  scenario: z.union([z.string(), z.record(z.string(), z.unknown())]).optional().describe('a simulator scenario (file or object) to take an environment from, with its empty-room reference simulated'),
  densePose: z.enum(['none', 'parts', 'parts+iuv']).default('parts').describe('derived dense pose: none, convention A (parts with UV), or A plus convention B IUV images'),
  presenceThreshold: z.number().min(0).max(1).optional().describe("override the model's presence threshold"),
  referenceRefresh: RefreshSettingsSchema.prefault({}).describe('automatic empty-room reference refresh (off by default: autoref-protocol.md); judged by the locator, and by sense.room where its frames come in on the room port'),
});

/**
 * `pose.locate`: raw CSI frames of every link of a room in, PoseFrames out. Needs each room's
 * empty-room reference. People are placed by coherent back-projection against it; their
 * skeleton is the training mean pose (the frame's `pipeline` says so).
 */
export const poseLocateNode = defineNode({
  type: 'pose.locate',
  title: 'Pose locate (empty-room reference)',
  category: 'models',
  description: 'Locates people on the floor from raw CSI of every link against an empty-room reference (coherent back-projection over antennas and subcarriers), counts them with a learned head, and places the training mean pose at each: position and count are estimated, posture is not.',
  inputs: {
    frames: { type: DataTypes.CsiFrame, required: true, description: 'raw CSI frames of every link (not through the signal chain)' },
    room: { type: DataTypes.SensingFrame, description: "sense.room's frames: once any came, the reference refresh also needs sensing's `empty` for every second. Only frames of this node's rooms count (sense.link's environmentId must be the room's id); the others are counted in the stats (roomFramesIgnored) with their rooms and why" },
  },
  outputs: { poses: { type: DataTypes.PoseFrame, description: "people located, each with its track id and `evidence`: the change its estimate explains, in noise energies summed over links (null when its track held no peak this estimate); tracker.track can hold back ids of little evidence (upstream_min_evidence, opt-in)" } },
  config: PoseLocateConfig,
  capabilities: ['fs.read'],
  async create(ctx) {
    // Paths named by the flow open only where the run's file access allows; the shipped model (no path) is the package's own.
    const model = loadLocatorModel(ctx.config.model ? await resolveLocatorModelFolder(ctx.files, ctx.config.model) : SHIPPED_LOCATOR_DIR);
    const environments: EnvironmentGeometry[] = [...ctx.config.environments];
    const references: EmptyRoomReference[] = [];
    // Which file each reference came from, and whether the installer may replace it (not in a read-only root).
    const referenceFiles = new Map<EmptyRoomReference, { file: string; writable: string | null }>();
    for (const [i, file] of ctx.config.references.entries()) {
      const resolved = await ctx.files.resolve(file, 'read').catch((error: Error) => {
        throw PoseErrors.referenceMissing(`references[${i}] (${file})`, error.message);
      });
      let reference: EmptyRoomReference;
      try {
        reference = readReference(resolved);
      } catch (error) {
        if ((error as { code?: string }).code === PoseErrors.referenceMissing.code) throw PoseErrors.referenceMissing(`references[${i}] (${file})`, 'the file does not exist');
        throw error;
      }
      references.push(reference);
      referenceFiles.set(reference, { file, writable: await ctx.files.resolve(file, 'write').catch(() => null) });
    }
    if (ctx.config.scenario !== undefined) {
      const sim = (await loadSim()) as Awaited<ReturnType<typeof loadSim>> & { loadScenario?: (file: string) => ScenarioGeometry; validateScenario?: (input: unknown) => ScenarioGeometry };
      const scenario = typeof ctx.config.scenario === 'string'
        ? sim.loadScenario?.(await ctx.files.resolve(ctx.config.scenario, 'read'))
        : sim.validateScenario?.(ctx.config.scenario);
      if (!scenario) throw PoseErrors.simulatorMissing('@wiflow/plugin-sim does not export loadScenario');
      environments.push(environmentFromScenario(scenario));
      references.push(simulateReference(sim, scenario as never));
    }
    // Every environment's reference checked before anything runs: missing or not fitting fails the flow here, naming link and field.
    const inUse = environments.map((environment) => referenceForEnvironment(environment, references));
    const options = { densePose: ctx.config.densePose, presenceThreshold: ctx.config.presenceThreshold, processingMode: ctx.mode === 'stream' ? ('realtime' as const) : ('job' as const) };
    let locator = new PoseLocator(model, environments, inUse, options);
    // The detector judges a re-plug as this locator copes with it: with its gain per receive chain, if it has one.
    const imaging = model.spec.imaging;
    const chainGain = imaging.staticChainGain && imaging.chainGain !== 'per-rx-chain' ? imaging.staticChainGain : null;
    type Room = { environmentId: string; reference: EmptyRoomReference; staleness: ReferenceStaleness; refresh: ReferenceRefresh };
    const rooms = new Map<string, Room>();
    const byLink = new Map<string, Room>();
    // Sensing judges too once sense.room has spoken on the room port (a pipeline without sensing never sends).
    let sensing = false;
    const useReference = (reference: EmptyRoomReference) => {
      const room = { environmentId: reference.environmentId, reference, staleness: new ReferenceStaleness(reference, {}, chainGain), refresh: new ReferenceRefresh(reference, ctx.config.referenceRefresh, sensing ? ['locator', 'sensing'] : ['locator']) };
      rooms.set(reference.environmentId, room);
      for (const link of reference.links) byLink.set(linkKey(link), room);
    };
    /** A refresh's new reference: the detector starts on it, the locator images against it; the refresh keeps its versions. */
    const refreshed = (room: Room, reference: EmptyRoomReference) => {
      room.reference = reference;
      room.staleness = new ReferenceStaleness(reference, {}, chainGain);
      locator.useReference(reference);
    };
    inUse.forEach(useReference);
    // Live pipelines offer their rooms to the installer's desk (recording, staleness); jobs do not.
    const desk = ctx.mode === 'stream' ? resolveDesk(ctx.services) : null;
    const detach = desk ? environments.map((environment) => desk.attach({
      environment,
      nodeId: ctx.id,
      referenceSource: referenceFiles.get(rooms.get(environment.id)!.reference)?.file ?? rooms.get(environment.id)!.reference.source,
      referenceFile: referenceFiles.get(rooms.get(environment.id)!.reference)?.writable ?? null,
      staleness: () => rooms.get(environment.id)!.staleness.status(),
      use(reference) {
        // A new locator: its packet history and frame numbering start again (the pose API's hub renumbers frames that go back).
        useReference(reference);
        locator = new PoseLocator(model, environments, environments.map((e) => rooms.get(e.id)!.reference), options);
      },
    })) : [];
    let frames = 0;
    // Sensing frames the room port cannot use, counted by why: never dropped without a trace.
    const ignoredRoomFrames = new Map<string, number>();
    const ignoreRoomFrame = (sensed: SensingFrame) => {
      const why = sensed.scope !== 'room'
        ? `${sensed.scope} frames of ${sensed.environmentId} (only sense.room's frames are a room's word)`
        : `room ${sensed.environmentId} is not one of this node's rooms (${[...rooms.keys()].join(', ')}): set sense.link's environmentId to the room's id`;
      const seen = ignoredRoomFrames.get(why) ?? 0;
      if (seen === 0) ctx.log({ event: 'room_frames_ignored', data: { reason: why } });
      ignoredRoomFrames.set(why, seen + 1);
    };
    return {
      async receive(port, value) {
        if (port === 'room') {
          const sensed = value as SensingFrame;
          // Only a room's word (sense.room): one link's "empty" says nothing of the others.
          const room = sensed.scope === 'room' ? rooms.get(sensed.environmentId) : undefined;
          if (!room) {
            ignoreRoomFrame(sensed);
            return;
          }
          if (!sensing) {
            sensing = true;
            for (const r of rooms.values()) r.refresh = new ReferenceRefresh(r.reference, ctx.config.referenceRefresh, ['locator', 'sensing']);
          }
          const next = room.refresh.judge('sensing', sensed.time, sensed.state === 'empty');
          if (next) refreshed(room, next);
          return;
        }
        const csi = value as CsiFrame;
        const room = byLink.get(linkKey(csi.link));
        if (!room) {
          // Never located against nothing: a link no room of this node has has no reference either.
          const key = linkKey(csi.link);
          const error = PoseErrors.referenceMissing(`frame of link ${key}`, `no environment of this pose.locate node has the link, so it has no empty-room reference (field link; the rooms' links are ${[...byLink.keys()].join(', ')})`);
          throw new WiflowError(error.code, error.message, error.status, { link: key, field: 'link' });
        }
        // A recording takes the frames before they are checked against the old reference: new radios (another channel, bandwidth) are recorded to fit them.
        desk?.offer(room.environmentId, csi);
        checkFrameFitsReference(csi, room.reference.links.find((l) => l.tx === csi.link.tx && l.rx === csi.link.rx)!);
        room.refresh.push(csi);
        const second = room.staleness.push(csi);
        const next = second && room.refresh.second(second);
        if (next) refreshed(room, next);
        const frame = locator.push(csi);
        if (!frame) return;
        const judged = room.refresh.judge('locator', frame.timestamp, frame.persons.length === 0);
        if (judged) refreshed(room, judged);
        frames++;
        await ctx.emit('poses', frame);
      },
      close() {
        for (const withdraw of detach) withdraw();
      },
      stats: () => {
        const states = [...rooms.values()].flatMap((r) => r.staleness.status().map((l) => ({ environment_id: r.environmentId, ...l })));
        return {
          frames,
          modelId: model.spec.modelId,
          modelHash: model.hash.slice(0, 12),
          staleReferenceLinks: states.filter((l) => l.status === 'stale').map((l) => l.link).join(', '),
          repluggedReferenceLinks: states.filter((l) => l.verdict === 'replugged').map((l) => l.link).join(', '),
          referenceStates: JSON.stringify(states),
          referenceRefresh: JSON.stringify([...rooms.values()].map((r) => ({ environment_id: r.environmentId, ...r.refresh.state() }))),
          roomFramesIgnored: [...ignoredRoomFrames.values()].reduce((a, b) => a + b, 0),
          roomFramesIgnoredWhy: [...ignoredRoomFrames.keys()].join('; '),
        };
      },
    };
  },
});
