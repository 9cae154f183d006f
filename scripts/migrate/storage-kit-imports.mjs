#!/usr/bin/env node
// One-off migration (issue 23): the storage kit left @wiflow/core for @wiflow/storage-kit.
// Rewrites `import`/`export ... from '@wiflow/core'` statements of the given files (default:
// every .ts/.tsx file of the workspaces) so that the kit's names come from the new package.
// Safe to run twice. Usage: node scripts/migrate/storage-kit-imports.mjs [files...]
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every name @wiflow/core exported before and @wiflow/storage-kit exports now. */
export const MOVED = new Set([
  'makePage', 'checkPageRequest', 'checkCursorRequest', 'checkTimeRange', 'encodeCursor', 'decodeCursor',
  'generateToken', 'hashToken', 'summarizeTrack', 'STATIONARY_SPEED', 'TrackPoint',
  'PoseAggregator', 'checkAggregateQuery', 'DEFAULT_AGGREGATE_INTERVAL_MS', 'AggregatePerson', 'FramesSummary',
  'PrivacyConfigSchema', 'toPrivacySettings',
  'encodePersonBody', 'decodePersonBody', 'isPersonBody', 'storedPersonForm', 'keypointNameIndexes',
  'PERSON_BODY_COCO_2D', 'PERSON_BODY_COCO_3D', 'ByteAllocator', 'DecodedPersonBody',
  'buildFlow', 'patchFlow', 'buildProject', 'patchProject', 'buildMessage', 'buildFile',
  'anonymizePerson', 'checkPoseFrame', 'hasPersonFilter', 'personMatches',
]);

const STATEMENT = /(import|export)(\s+type)?\s*\{([^}]*)\}\s*from\s*'@wiflow\/core';/g;

function render(keyword, typeOnly, names, source, multiline) {
  if (names.length === 0) return '';
  const head = `${keyword}${typeOnly ? ' type' : ''} {`;
  const one = `${head} ${names.join(', ')} } from '${source}';`;
  if (!multiline) return one;
  return `${head}\n${names.map((n) => `  ${n},`).join('\n')}\n} from '${source}';`;
}

/** The text with the moved names taken out of @wiflow/core statements (unchanged when none is). */
export function rewrite(text) {
  return text.replace(STATEMENT, (whole, keyword, typeKeyword, list) => {
    const names = list.split(',').map((s) => s.trim()).filter(Boolean);
    const imported = (n) => n.replace(/^type\s+/, '').split(/\s+as\s+/)[0].trim();
    const moved = names.filter((n) => MOVED.has(imported(n)));
    if (moved.length === 0) return whole;
    const kept = names.filter((n) => !moved.includes(n));
    const multiline = list.includes('\n');
    const parts = [render(keyword, !!typeKeyword, kept, '@wiflow/core', multiline), render(keyword, !!typeKeyword, moved, '@wiflow/storage-kit', multiline)];
    return parts.filter(Boolean).join('\n');
  });
}

function* sources(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.tsx?$/.test(name)) yield path;
  }
}

const files = process.argv.length > 2 ? process.argv.slice(2) : ['core', 'plugins', 'studio', 'examples', 'test'].flatMap((d) => [...sources(d)]);
for (const file of files) {
  const before = readFileSync(file, 'utf8');
  const after = rewrite(before);
  if (after !== before) {
    writeFileSync(file, after);
    console.log(file);
  }
}
