/** The upstream's base URL: `serverUrl` from the config, else the description's `servers`. */

type Json = Record<string, unknown>;

/**
 * The first server of the operation, its path item or the document, variables filled with their
 * defaults; a relative one (`/v1`) is resolved against the URL the description came from.
 * Undefined when none gives an absolute http(s) URL: the call then needs `serverUrl`.
 */
export function serverUrlOf(
  servers: unknown[],
  override: string | undefined,
  specUrl: string | undefined,
): string | undefined {
  if (override) return httpUrl(override);
  const server = servers.find((s): s is Json => typeof s === 'object' && s !== null && 'url' in s);
  if (!server || typeof server.url !== 'string') return undefined;
  const variables = (server.variables ?? {}) as Record<string, { default?: unknown }>;
  const url = server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const value = variables[name]?.default;
    return typeof value === 'string' ? value : whole;
  });
  try {
    return httpUrl(new URL(url, specUrl).href);
  } catch {
    return undefined;
  }
}

function httpUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}
