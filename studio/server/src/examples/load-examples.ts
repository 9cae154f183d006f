import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '@wiflow/core';
import type { StudioContext } from '../context.js';
import { FlowCreateSchema } from '../flows/flow-model.js';
import type { FlowService } from '../flows/flow-service.js';

const NAMESPACE = 'studio';
const KEY = 'examples-loaded';

/** What loading the example flows did. */
export interface ExamplesReport {
  loaded: string[];
  skipped: { file: string; reason: string }[];
}

/**
 * The example flows name scenarios relative to the installation (`examples/scenarios/…`, as
 * the CLI runs them from the repository root); the flow service anchors relative paths in the
 * owner's file folder, so they are made absolute here, under the read-only scenarios root.
 */
function anchorScenarios(flow: { data?: { nodes?: { data?: { config?: Record<string, unknown> } }[] } }, dir: string): unknown {
  const installation = path.resolve(dir, '..', '..');
  for (const node of flow.data?.nodes ?? []) {
    const config = node.data?.config;
    if (typeof config?.scenario === 'string' && !path.isAbsolute(config.scenario)) config.scenario = path.join(installation, config.scenario);
  }
  return flow;
}

/**
 * On first start, import every flow JSON of `dir` into the owner's default project (once:
 * a setting remembers it, so a user who deletes an example does not get it back). Flows
 * are stored like any import: validated, drafts kept with their problems.
 */
export async function loadExampleFlows(studio: StudioContext, flows: FlowService, dir: string, owner: string, logger: Logger): Promise<ExamplesReport | null> {
  const storage = studio.storage;
  if (await storage.settings.get(NAMESPACE, KEY)) return null;
  const user = await storage.users.getByUsername(owner);
  if (!user) {
    logger.warn(`example flows not loaded: user ${owner} does not exist`);
    return null;
  }
  const principal = { userId: user.id, username: user.username, roles: user.roles, via: 'local' };
  const report: ExamplesReport = { loaded: [], skipped: [] };
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  } catch (error) {
    logger.warn(`example flows not loaded: cannot read ${dir}: ${(error as Error).message}`);
    return null;
  }
  const project = await studio.defaultProject(user.id);
  for (const file of files) {
    try {
      const body = FlowCreateSchema.parse(anchorScenarios(JSON.parse(readFileSync(path.join(dir, file), 'utf8')), dir));
      const flow = await flows.create(principal, { ...body, id: null }, { folderId: project.id });
      report.loaded.push(flow.name);
    } catch (error) {
      report.skipped.push({ file, reason: (error as Error).message.slice(0, 300) });
      logger.warn(`example flow ${file} not loaded: ${(error as Error).message.slice(0, 300)}`);
    }
  }
  await storage.settings.set(NAMESPACE, KEY, { at: new Date().toISOString(), loaded: report.loaded });
  logger.info(`loaded ${report.loaded.length} example flows into project ${project.name}`, { flows: report.loaded });
  return report;
}
