import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { HttpErrors, credentialsOf, errorEnvelope, requireRole } from '../index.js';

function request(headers: Record<string, string>, url = '/'): IncomingMessage {
  return { headers, url } as unknown as IncomingMessage;
}

describe('credentials: one rule set for every API', () => {
  it('reads one bearer token (scheme in any case) and the X-API-Key header', () => {
    expect(credentialsOf(request({ authorization: '  bEaReR abc.def  ' }))).toEqual({ bearer: 'abc.def', apiKey: undefined });
    expect(credentialsOf(request({ authorization: 'Bearer two words' }))).toEqual({ bearer: undefined, apiKey: undefined });
    expect(credentialsOf(request({ authorization: 'Basic dXNlcjpwdw==' }))).toEqual({ bearer: undefined, apiKey: undefined });
    expect(credentialsOf(request({ 'x-api-key': 'wf_key' }))).toEqual({ bearer: undefined, apiKey: 'wf_key' });
  });

  it('looks in the query string and the subprotocol only where the API says so', () => {
    const url = '/x?token=t1&api_key=k1';
    expect(credentialsOf(request({}, url))).toEqual({ bearer: undefined, apiKey: undefined });
    expect(credentialsOf(request({}, '/x?x-api-key=k2'), 'api-key-query')).toEqual({ bearer: undefined, apiKey: 'k2' });
    expect(credentialsOf(request({}, url), 'api-key-query')).toEqual({ bearer: undefined, apiKey: 'k1' });
    expect(credentialsOf(request({}, url), 'socket')).toEqual({ bearer: 't1', apiKey: 'k1' });
    expect(credentialsOf(request({ 'sec-websocket-protocol': 'wiflow.v1, bearer.t2' }), 'socket')).toEqual({ bearer: 't2', apiKey: undefined });
    // A header wins over the query string.
    expect(credentialsOf(request({ authorization: 'Bearer h1', 'x-api-key': 'hk' }, url), 'socket')).toEqual({ bearer: 'h1', apiKey: 'hk' });
  });
});

describe('roles and the error envelope', () => {
  it('refuses nobody with 401 and a weaker role with 403', () => {
    expect(() => requireRole(undefined, 'viewer', 'the API key is invalid')).toThrow(expect.objectContaining({ status: 401, message: 'the API key is invalid' }));
    expect(() => requireRole({ userId: 'u', username: 'u', roles: ['viewer'], via: 'jwt' }, 'operator')).toThrow(expect.objectContaining({ status: 403 }));
    expect(requireRole({ userId: 'u', username: 'u', roles: ['admin'], via: 'jwt' }, 'operator').userId).toBe('u');
  });

  it('never echoes a secret-named field, however deep', () => {
    const error = HttpErrors.validation([
      { field: 'password', message: 'Too long', received: 'hunter2-hunter2' },
      { field: '(body)', message: 'Unrecognized key', received: { user: { refresh_token: 'wfr_abc', name: 'x' } } },
    ]);
    const text = JSON.stringify(errorEnvelope(error, 'A', 'r1'));
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('wfr_abc');
    expect(text).toContain('"name":"x"');
  });
});
