// One storage interface for files the service produces (quote PDFs now; imports and invoices later), with
// short-lived signed download URLs. The default keeps files under DATA_DIR/files and signs URLs that this app
// serves (GET /files/{token}); an S3-compatible store implements the same interface with presigned GETs.
//
// A URL's token is a signed token (shared/signed-token.ts, purpose "download.v1") carrying the key, filename and
// content type; an expired or altered token is 404 (nothing says which).
import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { link, mkdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Config } from "../config";
import { signToken, verifyToken } from "./signed-token";

export interface Storage {
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** Stores `bytes` at `key` unless something is there already: true when this call stored them (first writer wins). */
  putIfAbsent(key: string, bytes: Buffer, contentType: string): Promise<boolean>;
  get(key: string): Promise<Buffer | null>;
  /** Streams `source` into `key` without holding it in memory; rejects with StorageLimitError past maxBytes (nothing stored). Returns the bytes written. */
  putStream(key: string, source: Readable, maxBytes: number): Promise<number>;
  /** The stored bytes as a stream (from 0 to `end` inclusive when given), or null when absent. */
  getStream(key: string, opts?: { end?: number }): Promise<Readable | null>;
  /** The stored size in bytes, or null when absent. */
  size(key: string): Promise<number | null>;
  /** A URL a browser can GET for `ttlSeconds`, served as an attachment named `filename`. */
  signedUrl(key: string, opts: { filename: string; contentType: string; ttlSeconds: number; now: Date }): Promise<string>;
}

const KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,300}$/;
function checkKey(key: string) {
  if (!KEY.test(key) || key.split("/").some((p) => p === ".." || p === "." || p === "")) throw new Error(`invalid storage key ${key}`);
}

/** A streamed upload went past its limit. */
export class StorageLimitError extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
  }
}

interface DownloadGrant {
  key: string;
  filename: string;
  contentType: string;
}

function signDownload(config: Config, g: DownloadGrant, expiresAt: Date): string {
  return signToken(config, "download.v1", { k: g.key, f: g.filename, t: g.contentType }, expiresAt);
}

/** The grant a token carries, or null when it is malformed, altered or expired. */
export function verifyDownload(config: Config, token: string, now: Date): DownloadGrant | null {
  const g = verifyToken(config, "download.v1", token, now);
  if (!g || typeof g.k !== "string" || typeof g.f !== "string" || typeof g.t !== "string") return null;
  return { key: g.k, filename: g.f, contentType: g.t };
}

export class LocalStorage implements Storage {
  constructor(
    private readonly config: Config,
    private readonly root = path.resolve(config.DATA_DIR, "files"),
  ) {}

  private file(key: string) {
    checkKey(key);
    return path.join(this.root, key);
  }

  /** A temporary name beside `f` that no other write (this process or another) can share. */
  private tmp(f: string) {
    return `${f}.${process.pid}.${randomUUID()}.tmp`;
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const f = this.file(key);
    await mkdir(path.dirname(f), { recursive: true });
    const tmp = this.tmp(f);
    try {
      await writeFile(tmp, bytes);
      await rename(tmp, f); // readers see the whole file or none
    } catch (e) {
      await unlink(tmp).catch(() => undefined);
      throw e;
    }
  }

  async putIfAbsent(key: string, bytes: Buffer): Promise<boolean> {
    const f = this.file(key);
    await mkdir(path.dirname(f), { recursive: true });
    const tmp = this.tmp(f);
    try {
      await writeFile(tmp, bytes);
      await link(tmp, f); // atomic, and refuses (EEXIST) when another writer got there first; readers see all or none
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw e;
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.file(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw e;
    }
  }

  async putStream(key: string, source: Readable, maxBytes: number): Promise<number> {
    const f = this.file(key);
    await mkdir(path.dirname(f), { recursive: true });
    const tmp = this.tmp(f);
    let bytes = 0;
    const count = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        if (bytes > maxBytes) return done(new StorageLimitError(maxBytes));
        done(null, chunk);
      },
    });
    try {
      await pipeline(source, count, createWriteStream(tmp));
    } catch (e) {
      await unlink(tmp).catch(() => undefined);
      throw e;
    }
    await rename(tmp, f); // readers see the whole file or none
    return bytes;
  }

  async getStream(key: string, opts: { end?: number } = {}): Promise<Readable | null> {
    const f = this.file(key);
    if ((await this.size(key)) === null) return null;
    return createReadStream(f, opts.end !== undefined ? { start: 0, end: opts.end } : {});
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.file(key))).size;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw e;
    }
  }

  async signedUrl(key: string, opts: { filename: string; contentType: string; ttlSeconds: number; now: Date }): Promise<string> {
    checkKey(key);
    const token = signDownload(this.config, { key, filename: opts.filename, contentType: opts.contentType }, new Date(opts.now.getTime() + opts.ttlSeconds * 1000));
    return `${(this.config.BASE_URL ?? "").replace(/\/+$/, "")}/files/${token}`;
  }
}

const stores = new WeakMap<Config, Storage>();
/** The process's storage for a configuration (local files under DATA_DIR). */
export function storageFor(config: Config): Storage {
  let s = stores.get(config);
  if (!s) stores.set(config, (s = new LocalStorage(config)));
  return s;
}
