// One place that talks to the server: auth token, both pose-API conventions, errors.

/** An API error with the server's message and status. */
export class ApiError extends Error {
  constructor(message: string, readonly status: number, readonly body: unknown) {
    super(message);
  }
}

const TOKEN_KEY = 'wiflow.token';
const REFRESH_KEY = 'wiflow.refresh';

/** The stored access token, if logged in. */
export function getToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setTokens(access: string | null, refresh?: string | null): void {
  if (access) sessionStorage.setItem(TOKEN_KEY, access);
  else sessionStorage.removeItem(TOKEN_KEY);
  if (refresh) sessionStorage.setItem(REFRESH_KEY, refresh);
  else if (access === null) sessionStorage.removeItem(REFRESH_KEY);
}

/** Convention B wraps payloads in `{success, data}`; convention A does not. */
export function unwrap<T>(body: unknown): T {
  if (body && typeof body === 'object' && 'success' in body && 'data' in body) return (body as { data: T }).data;
  return body as T;
}

function errorText(body: unknown, status: number): string {
  if (body && typeof body === 'object') {
    const b = body as { detail?: unknown; error?: { message?: string; details?: unknown }; message?: string };
    if (typeof b.detail === 'string') return b.detail;
    if (Array.isArray(b.detail)) return b.detail.map((d) => (typeof d === 'object' && d && 'msg' in d ? String((d as { msg: string }).msg) : JSON.stringify(d))).join('; ');
    if (b.error?.message) return b.error.message;
    if (b.message) return b.message;
  }
  return `HTTP ${status}`;
}

/** Fetch JSON with the bearer token; throws ApiError on non-2xx (401 logs out). */
export async function api<T = unknown>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const headers = new Headers(init.headers);
  const token = getToken();
  if (token) headers.set('Authorization', `Bearer ${token}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const response = await fetch(path, { ...init, headers, body });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (!response.ok) throw failed(path, response.status, parsed);
  return parsed as T;
}

/** The ApiError of a non-2xx answer (a 401 outside the token endpoint logs out). */
export function failed(path: string, status: number, body: unknown): ApiError {
  if (status === 401 && !path.includes('/auth/token')) {
    setTokens(null);
    window.dispatchEvent(new Event('wiflow:logout'));
  }
  return new ApiError(errorText(body, status), status, body);
}

/** Log in against the pose service's token endpoint (the same users as every API). */
export async function login(username: string, password: string): Promise<void> {
  const body = await api<unknown>('/api/v1/auth/token', { method: 'POST', json: { username, password } });
  const data = unwrap<{ access_token: string; refresh_token?: string }>(body);
  setTokens(data.access_token, data.refresh_token ?? null);
}
