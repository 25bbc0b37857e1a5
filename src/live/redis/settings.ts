// D4: what names a Redis Cluster in the settings (REDIS_CLUSTER_NODES, or a redis+cluster:// REDIS_URL),
// parsed here for src/config.ts: pure functions of the text, no environment read.

/** A Redis Cluster to fan out through: seed nodes (the client discovers the rest) and credentials. */
export interface RedisClusterSettings {
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
  /** `rediss+cluster://`: TLS to every node. */
  tls: boolean;
}

type ClusterNode = RedisClusterSettings['nodes'][number];

export const CLUSTER_NODES_FORM =
  'comma-separated host:port of Redis Cluster nodes, e.g. 10.0.0.1:7000,10.0.0.2:7000';
export const CLUSTER_URL_FORM =
  'a redis+cluster://[user:password@]host:port[,host:port…] URL (no path: a cluster has database 0 only)';

/** `host:port` of a node (a host name, an IPv4 or a bracketed IPv6 address); null when it is not one. */
function clusterNodeOf(entry: string): ClusterNode | null {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):([0-9]{1,5})$/.exec(entry.trim());
  const port = Number(match?.[2]);
  if (!match?.[1] || port < 1 || port > 65535) return null;
  return { host: match[1].replace(/^\[(.*)\]$/, '$1'), port };
}

/** A comma-separated list of `host:port`; null when any entry is not one. */
export function parseClusterNodes(list: string): ClusterNode[] | null {
  const nodes = list.split(',').map(clusterNodeOf);
  return nodes.every((node) => node !== null) ? nodes : null;
}

/** A percent-encoded user name or password; null when the encoding is broken. */
function decodedPart(part: string | undefined): string | undefined | null {
  if (!part) return undefined;
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

/**
 * A `redis+cluster://` (TLS: `rediss+cluster://`) URL names a cluster by seed nodes; any other URL
 * is one Redis. Told by the scheme, not by probing the server at start, so the mode never depends
 * on whether Redis answered then. Null: a cluster URL of the wrong form.
 */
export function parseRedisUrl(url: string): { url: string } | { cluster: RedisClusterSettings } | null {
  if (!/^rediss?\+cluster:/.test(url)) return { url };
  const parts = /^(rediss?)\+cluster:\/\/(?:([^@/:]*)(?::([^@/]*))?@)?([^@/?#]+)\/?$/.exec(url);
  const nodes = parts?.[4] ? parseClusterNodes(parts[4]) : null;
  const username = decodedPart(parts?.[2]);
  const password = decodedPart(parts?.[3]);
  if (!parts || !nodes || username === null || password === null) return null;
  return { cluster: { nodes, username, password, tls: parts[1] === 'rediss' } };
}
