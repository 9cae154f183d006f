// Public entry of @wiflow/storage-conformance: the one suite every storage implementation runs.
export { describeStorageConformance, type StorageFactory, type StorageFactoryOptions, type ConformanceOptions } from './suite.js';
export { poseFixture, fixtureStart, makePerson, makeEvent, makeAlert, storedPerson, storedFrame, FIXTURE_METADATA, HOUR, DAY } from './fixtures.js';
