import { createCipheriv, createDecipheriv, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Encrypts secrets at rest (AES-256-GCM). The key comes from WIFLOW_SECRET_KEY (hex or
 * base64, 32 bytes) or from `<dataDir>/secret.key`, created with owner-only permissions.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('secret key must be 32 bytes');
    this.#key = key;
  }

  /** Load the key from the environment or the data directory, creating it on first use. */
  static fromDataDir(dataDir: string, env: NodeJS.ProcessEnv = process.env): SecretBox {
    return new SecretBox(loadOrCreateKey(dataDir, 'secret.key', env.WIFLOW_SECRET_KEY));
  }

  /** Encrypt a string to `v1:<iv>:<tag>:<ciphertext>` (base64 parts). */
  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
  }

  /** Decrypt what `seal` produced; throws when it was tampered with. */
  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split(':');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  }
}

/** Read a 32-byte key from `value` (hex/base64) or `<dir>/<file>`, creating the file (mode 0600) when missing. */
export function loadOrCreateKey(dir: string, file: string, value?: string): Buffer {
  if (value) {
    const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
    if (key.length !== 32) throw new Error(`${file}: the key from the environment must be 32 bytes`);
    return key;
  }
  const keyPath = path.join(dir, file);
  if (existsSync(keyPath)) return Buffer.from(readFileSync(keyPath, 'utf8').trim(), 'hex');
  mkdirSync(dir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(keyPath, key.toString('hex'), { mode: 0o600 });
  chmodSync(keyPath, 0o600);
  return key;
}

/** Hash a password or API key with scrypt: `scrypt$<salt>$<hash>`. */
export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(secret, salt, 32, { N: 16384, r: 8, p: 1 });
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Check a secret against a `hashSecret` result in constant time. */
export function verifySecret(secret: string, stored: string): boolean {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = scryptSync(secret, Buffer.from(salt, 'base64'), expected.length, { N: 16384, r: 8, p: 1 });
  return timingSafeEqual(expected, actual);
}
