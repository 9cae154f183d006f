import type { NextFunction, Request, Response } from 'express';
import { CoreErrors, HttpErrors, WiflowError, flowServiceErrorBody, type Logger } from '@wiflow/core';
import { StudioErrors } from '../errors.js';

/** The one place the flow service's errors become HTTP answers, in core's flow-service envelope: `{detail, code}` (FastAPI style), 422 validation as `{detail: [...]}`. */
export function errorHandler(logger: Logger, maxUploadMb: () => number) {
  return (error: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(error);
      return;
    }
    if (error instanceof WiflowError) {
      if (error.status === 401 && !res.hasHeader('WWW-Authenticate')) res.setHeader('WWW-Authenticate', 'Bearer');
      if (error.status >= 500) logger.error('request failed', { code: error.code, error: error.message });
      res.status(error.status).json(flowServiceErrorBody(error));
      return;
    }
    const e = error as { code?: string; status?: number; statusCode?: number; type?: string; message?: string; name?: string; limit?: number };
    if (e?.name === 'MulterError') {
      const mapped = e.code === 'LIMIT_FILE_SIZE' ? StudioErrors.fileTooLarge(maxUploadMb()) : StudioErrors.invalidUpload(`upload rejected: ${e.message}`);
      res.status(mapped.status).json(flowServiceErrorBody(mapped));
      return;
    }
    if (e?.type === 'entity.parse.failed') {
      res.status(422).json({ detail: [{ loc: ['body'], msg: `JSON decode error: ${e.message}`, type: 'json_invalid' }], code: 'WIFLOW_STUDIO_VALIDATION' });
      return;
    }
    if (e?.type === 'entity.too.large') {
      // A JSON body, not a file: the body-too-large code the other APIs answer (WIFLOW_STUDIO_FILE_TOO_LARGE is for uploads).
      const mapped = HttpErrors.bodyTooLarge(typeof e.limit === 'number' ? `${e.limit} bytes` : 'the size limit');
      res.status(mapped.status).json(flowServiceErrorBody(mapped));
      return;
    }
    // Express's own 400 for a path parameter that is not valid percent-encoding (raised while matching).
    if (error instanceof URIError) {
      const mapped = CoreErrors.invalidPathEncoding(error.message.slice(0, 300));
      res.status(mapped.status).json(flowServiceErrorBody(mapped));
      return;
    }
    const status = e?.status ?? e?.statusCode ?? 500;
    if (status >= 500) logger.error('request failed', { error: String(e?.message ?? error) });
    res.status(status).json({ detail: status >= 500 ? 'Internal server error' : String(e?.message ?? 'error') });
  };
}
