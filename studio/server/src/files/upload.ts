import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import multer from 'multer';
import type { StudioContext } from '../context.js';
import { RequestValidationError } from '../http/validation.js';

/** Make an uploaded file name safe: the last path segment, no control characters, no leading dots, at most 200 characters. */
export function sanitizeFileName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? '';
  let clean = last
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f<>:"|?*]/g, '_')
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '')
    .trim();
  if (clean.length > 200) {
    const ext = path.extname(clean).slice(0, 20);
    clean = clean.slice(0, 200 - ext.length) + ext;
  }
  return clean || 'file';
}

/**
 * Middleware for a multipart body with one field `file`: in memory (flow imports) or in a
 * temporary file (user files), `max_file_size_upload` enforced (413), required when asked.
 */
export function singleFile(studio: StudioContext, options: { required: boolean; toDisk?: boolean }) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const limit = Math.floor(studio.config.maxFileSizeUploadMb * 1024 * 1024);
    let storage: multer.StorageEngine;
    if (options.toDisk) {
      const dir = path.join(studio.filesDir, '.incoming');
      mkdirSync(dir, { recursive: true });
      storage = multer.diskStorage({ destination: dir });
    } else {
      storage = multer.memoryStorage();
    }
    const upload = multer({ storage, limits: { fileSize: limit, files: 1, fields: 20 } }).single('file');
    upload(req, res, (error?: unknown) => {
      if (error) return next(error);
      if (options.required && !req.file) return next(new RequestValidationError([{ loc: ['body', 'file'], msg: 'Field required', type: 'missing' }]));
      next();
    });
  };
}

