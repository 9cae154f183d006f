// Validates answers against the served OpenAPI document (ajv, JSON Schema draft 2020-12).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Response } from 'supertest';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, any>;

/** Checks responses of one convention's document; remembers which operations were seen. */
export class ContractChecker {
  readonly #ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  readonly #cache = new Map<string, ValidateFunction>();
  /** `METHOD path status` of every validated answer. */
  readonly seen = new Set<string>();

  constructor(readonly doc: Json) {}

  #schemaFor(path: string, method: string, status: number): Json {
    const operation = this.doc.paths?.[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`the OpenAPI document has no ${method} ${path}`);
    let response = operation.responses[String(status)];
    if (!response) throw new Error(`the OpenAPI document declares no ${status} for ${method} ${path} (declared: ${Object.keys(operation.responses).join(', ')})`);
    if (response.$ref) response = this.doc.components.responses[response.$ref.split('/').pop()];
    let schema = response.content?.['application/json']?.schema;
    if (schema?.$ref) schema = this.doc.components.schemas[schema.$ref.split('/').pop()];
    if (!schema) throw new Error(`no JSON schema for ${status} of ${method} ${path}`);
    return schema;
  }

  /** Assert that `res` is a documented answer of `METHOD path` (path as in the document). */
  check(res: Response, method: string, path: string): Response {
    const key = `${method.toUpperCase()} ${path} ${res.status}`;
    let validate = this.#cache.get(key);
    if (!validate) {
      validate = this.#ajv.compile(this.#schemaFor(path, method, res.status));
      this.#cache.set(key, validate);
    }
    if (!validate(res.body)) {
      throw new Error(`${key}: the body does not match the OpenAPI document: ${this.#ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body).slice(0, 800)}`);
    }
    for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-window']) {
      if (res.headers[header] === undefined) throw new Error(`${key}: header ${header} missing`);
    }
    this.seen.add(key);
    return res;
  }
}
