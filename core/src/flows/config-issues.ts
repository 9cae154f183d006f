// Node config problems in plain words: what a user must change, named by node and setting,
// instead of the schema library's own text ("config.name: Invalid input: expected string, ...").
import type { z } from 'zod';

/** A setting's path as a user writes it: `zones[0].polygon`. */
export function settingPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  return out;
}

/** What kind of value this is, in words ("text", "a number", ...). */
function kindOf(value: unknown): string {
  if (value === null) return 'empty (null)';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return `the text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case 'number':
      return `the number ${value}`;
    case 'boolean':
      return String(value);
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

/** The kind a schema expected, in words. */
const EXPECTED: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object (settings in braces)',
  tuple: 'a list',
  record: 'an object (settings in braces)',
  map: 'an object',
  date: 'a date',
  null: 'empty (null)',
  nan: 'not a number',
};

function valueAt(config: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = config;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function count(n: number | bigint, one: string, many: string): string {
  return `${n} ${Number(n) === 1 ? one : many}`;
}

/** One config issue as a sentence about the setting (without the node): `the setting "name" is required`. */
export function describeConfigIssue(issue: z.core.$ZodIssue, config: unknown): string {
  const field = settingPath(issue.path);
  const setting = field ? `the setting "${field}"` : 'the settings';
  const value = valueAt(config, issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      if (value === undefined) return `${setting} is required (${expected})`;
      return `${setting} must be ${expected}, not ${kindOf(value)}`;
    }
    case 'too_small': {
      const inclusive = issue.inclusive !== false;
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? `${setting} must not be empty` : `${setting} must have at least ${count(issue.minimum, 'character', 'characters')}`;
      if (issue.origin === 'array' || issue.origin === 'set') return `${setting} must have at least ${count(issue.minimum, 'item', 'items')}`;
      return `${setting} must be ${inclusive ? 'at least' : 'greater than'} ${issue.minimum}${value !== undefined ? ` (it is ${kindOf(value)})` : ''}`;
    }
    case 'too_big': {
      const inclusive = issue.inclusive !== false;
      if (issue.origin === 'string') return `${setting} must have at most ${count(issue.maximum, 'character', 'characters')}`;
      if (issue.origin === 'array' || issue.origin === 'set') return `${setting} must have at most ${count(issue.maximum, 'item', 'items')}`;
      return `${setting} must be ${inclusive ? 'at most' : 'less than'} ${issue.maximum}${value !== undefined ? ` (it is ${kindOf(value)})` : ''}`;
    }
    case 'invalid_value': {
      const allowed = issue.values.map((v) => JSON.stringify(v));
      if (allowed.length === 1) return `${setting} must be ${allowed[0]}${value !== undefined ? `, not ${kindOf(value)}` : ''}`;
      return `${setting} must be one of ${allowed.join(', ')}${value !== undefined ? `, not ${kindOf(value)}` : ''}`;
    }
    case 'invalid_format':
      return issue.format === 'regex' && 'pattern' in issue && issue.pattern ? `${setting} must match the pattern ${String(issue.pattern)}` : `${setting} must be a valid ${issue.format}`;
    case 'not_multiple_of':
      return `${setting} must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `${issue.keys.length === 1 ? `the setting "${settingPath([...issue.path, issue.keys[0]])}" is` : `the settings ${issue.keys.map((k) => `"${settingPath([...issue.path, k])}"`).join(', ')} are`} not known to this node type`;
    case 'invalid_union':
      return value === undefined ? `${setting} is required` : `${setting} has none of the accepted forms (it is ${kindOf(value)})`;
    default:
      // Custom checks (refinements) already say what is wrong in their own words.
      return `${setting}: ${issue.message}`;
  }
}
