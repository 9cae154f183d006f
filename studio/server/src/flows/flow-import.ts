import JSZip from 'jszip';
import { StudioErrors } from '../errors.js';
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../http/json-body.js';
import { readZipArchive, type ArchiveLimits } from './zip-archive.js';

/** One flow object found in an import (validated by the caller with FlowCreateSchema). */
export type ImportedFlow = Record<string, unknown>;

/** A project found in an import: name, description and its flows. */
export interface ImportedProject {
  name: string | null;
  description: string | null;
  flows: ImportedFlow[];
}

function isZip(buffer: Buffer): boolean {
  return buffer.length >= 4 && buffer[0] === 0x50 && buffer[1] === 0x4b && buffer[2] === 0x03 && buffer[3] === 0x04;
}

function parseJson(text: string, where: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw StudioErrors.invalidUpload(`${where} is not valid JSON: ${(error as Error).message}`);
  }
  const problem = jsonShapeProblem(value);
  if (problem === 'too_deep') throw StudioErrors.invalidUpload(`${where} is JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  if (problem) throw StudioErrors.invalidUpload(`${where} holds more than ${MAX_JSON_VALUES} JSON values`);
  return value;
}

/** Flows in one JSON document: a flow, an array of flows, or `{flows: [...]}`. */
function flowsOfDocument(doc: unknown, where: string): ImportedFlow[] {
  if (Array.isArray(doc)) return doc.map((f, i) => asObject(f, `${where}[${i}]`));
  const obj = asObject(doc, where);
  if (Array.isArray(obj.flows)) return obj.flows.map((f, i) => asObject(f, `${where}.flows[${i}]`));
  return [obj];
}

function asObject(value: unknown, where: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw StudioErrors.invalidUpload(`${where} is not a JSON object`);
  return value as Record<string, unknown>;
}

function zipEntries(buffer: Buffer, limits: ArchiveLimits): { name: string; text: string }[] {
  const wanted = (name: string) => name.toLowerCase().endsWith('.json') && !name.split('/').pop()?.startsWith('.');
  return readZipArchive(buffer, limits, wanted).map((entry) => ({ name: entry.name, text: entry.content.toString('utf8') }));
}

/** Flows in an uploaded file: JSON (flow, list, `{flows}`) or a zip of such JSON files. */
export async function readFlowImport(buffer: Buffer, limits: ArchiveLimits): Promise<ImportedFlow[]> {
  if (isZip(buffer)) {
    const flows: ImportedFlow[] = [];
    for (const entry of zipEntries(buffer, limits)) flows.push(...flowsOfDocument(parseJson(entry.text, entry.name), entry.name));
    return flows;
  }
  return flowsOfDocument(parseJson(buffer.toString('utf8'), 'the file'), 'the file');
}

/** A project in an uploaded file: `{folder_name, folder_description, flows}` JSON, or a zip (project.json plus flow files). */
export async function readProjectImport(buffer: Buffer, fileName: string, limits: ArchiveLimits): Promise<ImportedProject> {
  if (isZip(buffer)) {
    const project: ImportedProject = { name: null, description: null, flows: [] };
    for (const entry of zipEntries(buffer, limits)) {
      const doc = parseJson(entry.text, entry.name);
      if (entry.name.split('/').pop() === 'project.json') {
        const meta = asObject(doc, entry.name);
        project.name = typeof meta.folder_name === 'string' ? meta.folder_name : typeof meta.name === 'string' ? meta.name : null;
        project.description = typeof meta.folder_description === 'string' ? meta.folder_description : typeof meta.description === 'string' ? meta.description : null;
        if (Array.isArray(meta.flows)) project.flows.push(...flowsOfDocument(meta.flows, entry.name));
      } else {
        project.flows.push(...flowsOfDocument(doc, entry.name));
      }
    }
    project.name ??= fileName.replace(/\.zip$/i, '') || null;
    return project;
  }
  const doc = asObject(parseJson(buffer.toString('utf8'), 'the file'), 'the file');
  return {
    name: typeof doc.folder_name === 'string' ? doc.folder_name : typeof doc.name === 'string' ? doc.name : null,
    description: typeof doc.folder_description === 'string' ? doc.folder_description : typeof doc.description === 'string' ? doc.description : null,
    flows: Array.isArray(doc.flows) ? flowsOfDocument(doc.flows, 'flows') : [],
  };
}

/** A zip holding files by name. */
export async function makeZip(files: { name: string; content: string | Buffer }[]): Promise<Buffer> {
  const zip = new JSZip();
  for (const file of files) zip.file(file.name, file.content);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** A file-name-safe version of a flow or project name, unique within `taken`. */
export function zipEntryName(name: string, taken: Set<string>, ext = '.json'): string {
  const base = name.replace(/[^A-Za-z0-9 _().-]/g, '_').trim() || 'flow';
  let candidate = `${base}${ext}`;
  for (let n = 2; taken.has(candidate); n++) candidate = `${base} (${n})${ext}`;
  taken.add(candidate);
  return candidate;
}
