import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  randomInt,
  scrypt,
  timingSafeEqual,
} from "node:crypto";
import { promisify } from "node:util";

const scryptAsync = promisify(scrypt) as (
  pw: string,
  salt: Buffer,
  len: number,
  opts: object,
) => Promise<Buffer>;
const B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Base62 string with `bytes` bytes of entropy (rejection-free: each char from randomInt). */
export function randomBase62(bytes: number): string {
  const chars = Math.ceil((bytes * 8) / Math.log2(62));
  let s = "";
  for (let i = 0; i < chars; i++) s += B62[randomInt(62)];
  return s;
}

/** Record ids: `<prefix>_<22 base62 chars>` (~131 bits), sortable enough by creation via created_at. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(16)}`;
}

export function sha256Hex(value: string | Buffer): string {
  return createHash("sha256").update(value).digest("hex");
}

export function hmacSha256(key: string | Buffer, data: string | Buffer): Buffer {
  return createHmac("sha256", key).update(data).digest();
}

/** Constant-time string comparison that does not leak length through an early return on content. */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const ab = Buffer.isBuffer(a) ? a : Buffer.from(a);
  const bb = Buffer.isBuffer(b) ? b : Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

// scrypt parameters: N=2^15, r=8, p=1 (OWASP's minimum for scrypt), 64-byte key.
const SCRYPT = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, 64, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !key) return false;
  const expected = Buffer.from(key, "base64");
  const actual = await scryptAsync(password, Buffer.from(salt, "base64"), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

/** AES-256-GCM for secrets at rest (tokens, webhook secrets). Output: `v1.<iv>.<tag>.<ciphertext>` base64url. */
export class SecretBox {
  private key: Buffer;
  constructor(secretKey: string) {
    this.key = createHash("sha256").update(`lift-secret-box:${secretKey}`).digest();
  }
  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv("aes-256-gcm", this.key, iv);
    const ct = Buffer.concat([c.update(plain, "utf8"), c.final()]);
    return [
      "v1",
      iv.toString("base64url"),
      c.getAuthTag().toString("base64url"),
      ct.toString("base64url"),
    ].join(".");
  }
  decrypt(sealed: string): string {
    const [v, iv, tag, ct] = sealed.split(".");
    if (v !== "v1" || !iv || !tag || ct === undefined) throw new Error("not a sealed secret");
    const d = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    d.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([d.update(Buffer.from(ct, "base64url")), d.final()]).toString("utf8");
  }
  /** A key derived for a purpose (state signing, tracking links), so one secret never serves two uses. */
  derive(purpose: string): Buffer {
    return createHmac("sha256", this.key).update(purpose).digest();
  }
}
