import { BSON } from 'mongodb';
import { COCO_KEYPOINTS, type PoseFrame, type StoredPerson } from '@wiflow/core';
import { storedPersonForm } from '@wiflow/storage-kit';
import { makePerson } from '@wiflow/storage-conformance';
import { describe, expect, it } from 'vitest';
import { encodePerson, personOf, type PersonDoc } from './repositories/pose-repository.js';

// The person document through real BSON (what the driver sends and gets back), without a server.
function throughBson(doc: PersonDoc): PersonDoc {
  return BSON.deserialize(BSON.serialize(doc)) as PersonDoc;
}

const frame = { timestamp: 1_700_000_000_000, frameId: 7, environmentId: 'lab', processingTimeMs: 1, persons: [], metadata: {} } as unknown as PoseFrame;

describe('pose_persons documents', () => {
  it('keep keypoints in a float32 binary body and every other field exact', () => {
    const person = makePerson(1, 101, 0.53, 1.1, 2.2) as StoredPerson;
    const doc = encodePerson(person, frame, 5, 3);
    expect(doc.person).not.toHaveProperty('keypoints');
    expect(doc.person).not.toHaveProperty('boundingBox');
    const back = personOf(throughBson(doc));
    expect(back).toEqual(storedPersonForm(person));
    expect(back.keypoints[1]!.confidence).toBe(Math.fround(0.525));
    expect(back.confidence).toBe(0.53);
    // The body is a fraction of the keypoints as BSON sub-documents.
    expect(BSON.calculateObjectSize(doc)).toBeLessThan(BSON.calculateObjectSize({ ...doc, body: null, person }) / 3);
  });

  it('keep keypoints with names outside COCO, and odd boxes, as they were', () => {
    const base = makePerson(0, null, 0.9, 0, 0) as StoredPerson;
    const odd = { ...base, keypoints: [{ name: 'tail' as (typeof COCO_KEYPOINTS)[number], x: 1.1, y: 2, confidence: 0.5, visible: false }], boundingBox: { ...base.boundingBox, label: 'x' } as StoredPerson['boundingBox'] };
    expect(personOf(throughBson(encodePerson(odd, frame, 1, 1)))).toEqual(odd);
  });
});
