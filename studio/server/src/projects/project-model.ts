import { z } from 'zod';
import type { ProjectRecord } from '@wiflow/core';
import { AuthSettingsSchema, publicAuthSettings } from '../mcp/auth-settings.js';

/** FolderCreate. */
export const FolderCreateSchema = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(255),
  description: z.string().nullable().optional(),
  auth_settings: AuthSettingsSchema.nullable().optional(),
  components_list: z.array(z.guid()).nullable().optional(),
  flows_list: z.array(z.guid()).nullable().optional(),
});

/** FolderUpdate. */
export const FolderUpdateSchema = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(255).nullable().optional(),
  description: z.string().nullable().optional(),
  parent_id: z.guid().nullable().optional(),
  auth_settings: AuthSettingsSchema.nullable().optional(),
  components: z.array(z.guid()).optional(),
  flows: z.array(z.guid()).optional(),
});

/** FolderRead (auth settings without the client secret). */
export function toFolderRead(project: ProjectRecord): Record<string, unknown> {
  return {
    id: project.id,
    name: project.name,
    parent_id: project.parentId,
    description: project.description,
    auth_settings: publicAuthSettings(project.authSettings),
  };
}
