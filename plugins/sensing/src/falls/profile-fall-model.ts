import { createHash } from 'node:crypto';
import type { LogisticModel } from '../model/logistic.js';
import shipped from './profile-fall-model.json' with { type: 'json' };

/** The shipped velocity-profile fall model (how it was fitted: the JSON's `fitted` and docs/sensing.md). */
export const PROFILE_FALL_MODEL: LogisticModel = shipped.model;

/** First 16 hex digits of the SHA-256 of the shipped model's parameters, as docs/sensing.md records them. */
export const PROFILE_FALL_MODEL_HASH = createHash('sha256').update(JSON.stringify(shipped.model)).digest('hex').slice(0, 16);
