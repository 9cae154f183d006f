// Public entry of @wiflow/storage-kit: what storage implementations share beyond core's
// storage contract (the `Storage` interface, its records and StorageErrors stay in @wiflow/core).
export { makePage, makeCursorPage, checkSortOrder, checkPageRequest, checkCursorRequest, checkTimeRange, encodeCursor, decodeCursor } from './paging.js';
// The bearer-secret helpers live in core's security (the identity rules use them); re-exported for the kit's users.
export { generateToken, hashToken } from '@wiflow/core';
export { summarizeTrack, STATIONARY_SPEED, type TrackPoint } from './track-statistics.js';
export { PoseAggregator, checkAggregateQuery, DEFAULT_AGGREGATE_INTERVAL_MS, type AggregatePerson, type FramesSummary } from './pose-aggregator.js';
export { PrivacyConfigSchema, toPrivacySettings } from './privacy-config.js';
export { encodePersonBody, decodePersonBody, isPersonBody, isPlainBox, isPlainVector, writeBodyHeader, writeKeypoints3d, storedPersonForm, keypointNameIndexes, COCO_2D as PERSON_BODY_COCO_2D, COCO_3D as PERSON_BODY_COCO_3D, type ByteAllocator, type DecodedPersonBody } from './person-body.js';
export { buildFlow, patchFlow, buildProject, patchProject, buildMessage, buildFile, anonymizePerson, checkEvent, checkPoseFrame, hasPersonFilter, personMatches } from './record-builders.js';
export { personColumns, type PersonColumns } from './person-columns.js';
export { checkSensingFrame, checkSensingQuery, sensingLinkKey } from './sensing-records.js';
export { PendingRecords, type PendingWrites } from './pending-writes.js';
export { JOB_STATUSES, checkJobRecord, checkJobQuery, checkKeepCount } from './job-records.js';
