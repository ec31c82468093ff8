import fs from 'node:fs';

/** A viewer extension installed in the deployment (docs/planning.md, "Plugins"), as GET /v1/plugins answers it. */
export interface PluginConfig {
  id: string;
  key: string;
  name: string;
  description: string;
  version: string;
  enabled: boolean;
  /** The script the viewer loads: an https address, http on localhost or 127.0.0.1, or a path on this server. */
  entryUrl: string;
}

const FIELDS = ['id', 'key', 'name', 'description', 'version', 'enabled', 'entryUrl'];
const KEY = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const MAX_PLUGINS = 100;

type Problem = (message: string) => never;

function text(value: unknown, where: string, problem: Problem, max: number, min = 1): string {
  if (typeof value !== 'string' || [...value].length < min || [...value].length > max) {
    problem(`${where} must be a string of ${min} to ${max} characters`);
  }
  return value as string;
}

function entryUrl(value: unknown, where: string, problem: Problem): string {
  const raw = text(value, where, problem, 2048);
  if (raw.startsWith('/') && !raw.startsWith('//')) return raw;
  let valid = false;
  try {
    const parsed = new URL(raw);
    const local = parsed.hostname === 'localhost' || parsed.hostname === '127.0.0.1';
    valid = parsed.protocol === 'https:' || (parsed.protocol === 'http:' && local);
  } catch {}
  if (!valid) problem(`${where} must be an https:// address (http:// only on localhost) or a path starting with /, got "${raw}"`);
  return raw;
}

function plugin(value: unknown, where: string, problem: Problem): PluginConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) problem(`${where} must be an object`);
  const entry = value as Record<string, unknown>;
  const unknown = Object.keys(entry).find((field) => !FIELDS.includes(field));
  if (unknown !== undefined) problem(`${where}.${unknown} is not a plugin field (fields: ${FIELDS.join(', ')})`);
  const key = text(entry.key, `${where}.key`, problem, 64);
  if (!KEY.test(key)) problem(`${where}.key must be lower-case letters, digits, . _ and -, starting with a letter or digit`);
  const id = entry.id === undefined ? key : text(entry.id, `${where}.id`, problem, 64);
  if (!ID.test(id)) problem(`${where}.id must be letters, digits, . _ and -, starting with a letter or digit`);
  if (entry.enabled !== undefined && typeof entry.enabled !== 'boolean') problem(`${where}.enabled must be true or false`);
  return {
    id,
    key,
    name: text(entry.name, `${where}.name`, problem, 255),
    description: entry.description === undefined ? '' : text(entry.description, `${where}.description`, problem, 2000, 0),
    version: text(entry.version, `${where}.version`, problem, 64),
    enabled: (entry.enabled as boolean | undefined) ?? true,
    entryUrl: entryUrl(entry.entryUrl, `${where}.entryUrl`, problem),
  };
}

/**
 * The plugins of RDP_PLUGINS_FILE: a JSON array of plugins, read and checked once at start. Any
 * problem is thrown (by `fail`, the caller's ConfigError) naming the file and the entry and field.
 */
export function readPluginsFile(file: string, fail: (message: string) => Error): PluginConfig[] {
  const problem: Problem = (message) => {
    throw fail(`RDP_PLUGINS_FILE (${file}): ${message}`);
  };
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch (error) {
    return problem(`cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    return problem(`is not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) problem('must hold a JSON array of plugins');
  const entries = parsed as unknown[];
  if (entries.length > MAX_PLUGINS) problem(`holds ${entries.length} plugins; at most ${MAX_PLUGINS}`);
  const plugins = entries.map((entry, index) => plugin(entry, `[${index}]`, problem));
  for (const field of ['key', 'id'] as const) {
    const seen = new Set<string>();
    plugins.forEach((entry, index) => {
      if (seen.has(entry[field])) problem(`[${index}].${field} "${entry[field]}" is given to two plugins`);
      seen.add(entry[field]);
    });
  }
  return plugins;
}
