/** Prefix of a node secret sealed at rest (inside a stored flow's node config). */
export const SEALED_SECRET_PREFIX = 'wiflow-sealed-secret:';

/** Seals and opens strings (the runtime's SecretBox). */
export interface SecretSealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

interface FlowNodeShape {
  data?: { nodeType?: unknown; config?: Record<string, unknown> };
}

function mapNodeConfigs(data: unknown, change: (nodeType: string, config: Record<string, unknown>) => Record<string, unknown> | undefined): unknown {
  const nodes = (data as { nodes?: unknown } | null)?.nodes;
  if (!Array.isArray(nodes)) return data;
  let changed = false;
  const next = nodes.map((node: FlowNodeShape) => {
    const config = node?.data?.config;
    if (!config || typeof config !== 'object' || typeof node.data?.nodeType !== 'string') return node;
    const updated = change(node.data.nodeType, config);
    if (!updated) return node;
    changed = true;
    return { ...node, data: { ...node.data, config: updated } };
  });
  return changed ? { ...(data as object), nodes: next } : data;
}

/**
 * A copy of flow data (`{ nodes: [{ data: { nodeType, config } }] }`) whose secret config
 * fields (the node type's `secrets`) are sealed, whatever the privacy settings: a stored
 * flow never holds an MQTT password or a token in clear. Storage calls it on write.
 */
export function sealNodeSecrets(data: unknown, secretsOf: (nodeType: string) => readonly string[], sealer: SecretSealer): unknown {
  return mapNodeConfigs(data, (nodeType, config) => {
    const names = secretsOf(nodeType).filter((name) => config[name] !== undefined && config[name] !== null && config[name] !== '' && !(typeof config[name] === 'string' && (config[name] as string).startsWith(SEALED_SECRET_PREFIX)));
    if (!names.length) return undefined;
    const copy = { ...config };
    for (const name of names) copy[name] = SEALED_SECRET_PREFIX + sealer.seal(JSON.stringify(copy[name]));
    return copy;
  });
}

/**
 * The inverse of sealNodeSecrets (storage calls it on read). A secret that no longer opens
 * (the secret key changed) reads as null: the user must enter it again; it is never guessed.
 */
export function openNodeSecrets(data: unknown, sealer: SecretSealer, onUnreadable?: (nodeType: string, field: string) => void): unknown {
  return mapNodeConfigs(data, (nodeType, config) => {
    const names = Object.keys(config).filter((name) => typeof config[name] === 'string' && (config[name] as string).startsWith(SEALED_SECRET_PREFIX));
    if (!names.length) return undefined;
    const copy = { ...config };
    for (const name of names) {
      try {
        copy[name] = JSON.parse(sealer.open((copy[name] as string).slice(SEALED_SECRET_PREFIX.length)));
      } catch {
        copy[name] = null;
        onUnreadable?.(nodeType, name);
      }
    }
    return copy;
  });
}
