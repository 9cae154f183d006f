import type { Provenance } from './csi.js';

/** The 17 COCO keypoint names, in COCO order. */
export const COCO_KEYPOINTS = [
  'nose', 'left_eye', 'right_eye', 'left_ear', 'right_ear',
  'left_shoulder', 'right_shoulder', 'left_elbow', 'right_elbow',
  'left_wrist', 'right_wrist', 'left_hip', 'right_hip',
  'left_knee', 'right_knee', 'left_ankle', 'right_ankle',
] as const;

/** A COCO keypoint name. */
export type CocoKeypointName = (typeof COCO_KEYPOINTS)[number];

/** Activities the simulator labels and the analytics use. */
export type Activity = 'standing' | 'walking' | 'sitting' | 'lying' | 'falling' | 'absent';

/** A keypoint in the environment's virtual-camera image plane (pixels). */
export interface Keypoint {
  name: CocoKeypointName;
  x: number;
  y: number;
  confidence: number;
  visible: boolean;
}

/** A keypoint in metres in the room frame (x, y on the floor, z up). */
export interface Keypoint3D {
  name: CocoKeypointName;
  x: number;
  y: number;
  z: number;
  confidence: number;
}

/** Axis-aligned box in the image plane. */
export interface BoundingBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Dense pose derived from a skeleton and a body model. */
export interface DensePose {
  /** Always 'derived': computed from the predicted skeleton, not learned. */
  source: 'derived';
  bodyParts: { partId: number; partName: string; uvCoordinates: [number, number][]; confidence: number }[];
  /** Convention B: PNG images (base64) over the person's bounding box, when asked for. */
  iuv?: {
    /** R = part index (0 background, 1..24), G = U × 255, B = V × 255. */
    iuvImage: string;
    /** Grey: confidence × 255 where a part is drawn. */
    confidenceMap: string;
    width: number;
    height: number;
    /** The image-plane box the images cover. */
    box: BoundingBox;
  };
}

/** One detected person in a pose frame. */
export interface Person {
  /** Index of the person within the frame. */
  id: number;
  /** Tracker-assigned id, or null before tracking. */
  trackId: number | null;
  confidence: number;
  keypoints: Keypoint[];
  boundingBox: BoundingBox;
  keypoints3d: Keypoint3D[];
  /** Floor position in metres. */
  position: { x: number; y: number };
  /** Floor velocity in m/s from the tracker, or null. */
  velocity?: { x: number; y: number } | null;
  /** Frames the track has existed, from the tracker. */
  trackAge?: number;
  /** Track lifecycle status from the tracker. */
  trackStatus?: 'tentative' | 'active' | 'lost' | 'ended';
  /**
   * The change this estimate of the person explains, in noise energies summed over links (pose.locate:
   * the image peak its track was fed this estimate; null when the track held no peak). Absent when the
   * estimator does not measure it. tracker.track, with `upstream_min_evidence` switched on (opt-in, off by
   * default), holds back an id until its mean is high enough. Internal: the pose API does not serialise it (the spec has no such field).
   */
  evidence?: number | null;
  densePose?: DensePose | null;
  activity?: Activity | null;
}

/** Where a pose frame came from. */
export interface PoseMetadata {
  /** Model id, e.g. 'wiflow-pose-v1'. */
  modelId: string;
  /** SHA-256 of the weights that produced the frame. */
  modelHash: string;
  modelVersion: string;
  /** 'realtime', 'batch', 'job'... */
  processingMode: string;
  provenance: Provenance;
  /** Mean CSI quality of the input windows (0..1), or null when unknown. */
  csiQuality: number | null;
  /** Number of links (routers) that contributed. */
  linkCount: number;
  /** Description of the processing chain. */
  pipeline: string;
  /**
   * Where the persons' `activity` came from when the room has CSI sensing (`pose.publish` fills it from the
   * room's sensing frame); absent when the activity is the pose estimator's own.
   */
  activitySource?: PoseActivitySource;
}

/** The sensing frame that gave a pose frame's activity (few distinct values: stored with the frame's metadata). */
export interface PoseActivitySource {
  kind: 'sensing';
  /** Sensing estimator id and config hash, and the sensing frame's provenance; null when no sensing frame was near. */
  estimatorId: string | null;
  configHash: string | null;
  provenance: Provenance | null;
  /**
   * Why the persons' activity is null, or null when it is given: 'several_people' (a room's sensing does not say
   * who), 'posture_unknown' (a still person whose posture the estimator cannot tell), 'other_movement',
   * 'room_empty' (the sensing saw nobody), 'no_sensing_frame' (none within 15 s of the pose frame).
   */
  nullReason: 'several_people' | 'posture_unknown' | 'other_movement' | 'room_empty' | 'no_sensing_frame' | null;
}

/** The output of the pose model for one environment at one instant (ARCHITECTURE §4). */
export interface PoseFrame {
  /** Wall-clock ms since epoch. */
  timestamp: number;
  frameId: number;
  environmentId: string;
  processingTimeMs: number;
  persons: Person[];
  metadata: PoseMetadata;
  /** Ground truth when the frame was computed from simulated CSI. */
  truth?: import('./truth.js').GroundTruthFrame;
}
