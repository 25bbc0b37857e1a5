// `npm run instruments:sync` (V2) settings, read once by the config's own rules (S12): where the venue
// answers, and the running service (and admin token) whose catalog it updates.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, integerSetting, parseSettings, readSettings, textSetting } from './config.js';

/** `npm run instruments:sync` (V2): where the venue answers, and the service and admin token it updates. */
export interface InstrumentSyncSettings {
  infoUrl: string;
  memoryUrl: string;
  adminToken: string;
}

const HTTP_URL = /^https?:\/\/[^\s/]+(\/\S*)?$/;
const instrumentSyncSchema = z.object({
  HYPERLIQUID_INFO_URL: textSetting(
    z
      .string()
      .regex(HTTP_URL, "the venue's info endpoint, an http(s):// URL")
      .default('https://api.hyperliquid.xyz/info'),
  ),
  MEMORY_URL: textSetting(z.string().regex(HTTP_URL, "the service's http(s):// address").optional()),
  PORT: integerSetting(0, 65535, 4000),
  ADMIN_TOKEN: textSetting(z.string().min(16, 'at least 16 characters').optional()),
  DATA_DIR: textSetting(z.string().default('./.data')),
});

/** The sync reaches the running service (the embedded database is its alone): its URL and admin token. */
export function loadInstrumentSyncConfig(
  env: NodeJS.ProcessEnv,
  cwd = process.cwd(),
): InstrumentSyncSettings {
  const settings = parseSettings(instrumentSyncSchema, readSettings(env, cwd));
  const tokenFile = path.join(path.resolve(cwd, settings.DATA_DIR), 'admin-token');
  const adminToken =
    settings.ADMIN_TOKEN ?? (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : '');
  if (!adminToken) throw new ConfigError(`ADMIN_TOKEN is required (or an embedded service's ${tokenFile})`);
  return {
    infoUrl: settings.HYPERLIQUID_INFO_URL,
    memoryUrl: (settings.MEMORY_URL ?? `http://127.0.0.1:${settings.PORT}`).replace(/\/+$/, ''),
    adminToken,
  };
}
