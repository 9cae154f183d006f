import type { Person, StoredPerson } from '@wiflow/core';

/** The fields of a stored person that every storage keeps queryable (filters, tracks, rollups). */
export interface PersonColumns {
  personId: number | null;
  trackId: number | null;
  confidence: number;
  activity: string | null;
  trackStatus: string | null;
  /** Floor position (m); 0 when the person has none. */
  x: number;
  y: number;
  /** Bounding-box centre (image plane); 0 when the person has no box. */
  cx: number;
  cy: number;
}

/** A person's queryable columns, the same in every storage. */
export function personColumns(person: Person | StoredPerson): PersonColumns {
  const box = person.boundingBox;
  return {
    personId: person.id ?? null,
    trackId: person.trackId ?? null,
    confidence: person.confidence,
    activity: person.activity ?? null,
    trackStatus: person.trackStatus ?? null,
    x: person.position?.x ?? 0,
    y: person.position?.y ?? 0,
    cx: box ? box.x + box.width / 2 : 0,
    cy: box ? box.y + box.height / 2 : 0,
  };
}
