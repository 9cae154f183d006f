import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import multer from 'multer';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
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
    // Browsers send UTF-8 file names without saying so; busboy's default (latin1) garbles them.
    const upload = multer({ storage, defParamCharset: 'utf8', limits: { fileSize: limit, files: 1, fields: 20, fieldNameSize: 200, headerPairs: 100 } }).single('file');
    const done = (error?: unknown): void => {
      if (error) return next(uploadError(error));
      const name = req.file?.originalname;
      if (name !== undefined && /[\u0000-\u001f\u007f]/.test(name)) {
        if (req.file?.path) void rm(req.file.path, { force: true });
        return next(StudioErrors.invalidUpload('the file name contains a control character (NUL, newline...); rename the file'));
      }
      if (options.required && !req.file) return next(new RequestValidationError([{ loc: ['body', 'file'], msg: 'Field required', type: 'missing' }]));
      next();
    };
    try {
      upload(req, res, done);
    } catch (error) {
      // busboy refuses some bodies synchronously (a multipart content type without a boundary).
      done(error);
    }
  };
}

/** Multer's own errors keep their meaning (413 for size); what busboy throws at a malformed body is a 400. */
function uploadError(error: unknown): unknown {
  if ((error as { name?: string })?.name === 'MulterError') return error;
  return StudioErrors.invalidUpload(`malformed multipart body: ${(error as Error)?.message ?? String(error)}`);
}
