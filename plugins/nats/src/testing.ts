// Test support for packages built on this plugin (`@wiflow/plugin-nats/testing`): a real
// nats-server on loopback, and the simulated rooms, flows and `wiflow` child processes of the
// multi-process cluster tests. Not part of the plugin's runtime surface.
export { NATS_SERVER, freePort, startNatsServer, useNatsServer, type NatsTestServer } from './nats-server.test-helper.js';
export { REPO_ROOT, WIFLOW_BIN, clusterWorkspace, flow, frameIngestFlow, ingestFlow, locateWorkerFlow, publishedFrames, pipelineEvents, prepareRooms, publishedSets, startWiflow, workerFlow, type ModelSetup, type Room, type WiflowProcess } from './bench/cluster-harness.js';
