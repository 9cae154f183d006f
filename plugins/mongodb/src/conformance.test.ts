import { MongoClient } from 'mongodb';
import { afterAll } from 'vitest';
import { describeStorageConformance } from '@wiflow/storage-conformance';
import { MongoStorage } from './index.js';

const url = process.env.MONGODB_URL;
const databases: string[] = [];
let next = 0;

afterAll(async () => {
  if (!url || databases.length === 0) return;
  const client = new MongoClient(url);
  try {
    for (const name of databases) await client.db(name).dropDatabase();
  } finally {
    await client.close();
  }
});

// A real server only: one throw-away database per storage the suite asks for.
describeStorageConformance(
  'MongoDB',
  async ({ privacy }) => {
    const database = `wiflow_conformance_${process.pid}_${next++}`;
    databases.push(database);
    return new MongoStorage({ url: url!, database, privacy: () => privacy, serverSelectionTimeoutMS: 5000 });
  },
  { skip: url ? false : 'MONGODB_URL is not set (e.g. MONGODB_URL=mongodb://127.0.0.1:27017 against MongoDB 7.0 or newer); the suite ran against no server' },
);
