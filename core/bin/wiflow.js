#!/usr/bin/env node
// Committed shim so npm can link the `wiflow` bin before the TypeScript build has run.
await import('../dist/cli/bin.js');
