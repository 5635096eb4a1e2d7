import { freePort } from '@quire/datastore';
import type { BackendConfig } from '@quire/runtime';
import { gatewayConfigSchema, type GatewayConfig } from './config';

/**
 * For tests: the gateway's settings in front of a real identity service at `identity`, the other
 * four services down (their port refuses connections), with `overrides` on top.
 */
export async function gatewayConfigBeforeIdentity(
  backend: BackendConfig,
  identity: { httpPort: number; grpcPort: number },
  overrides: Record<string, string> = {},
): Promise<GatewayConfig> {
  const down = await freePort();
  return gatewayConfigSchema.parse({
    ...backend,
    PORT: 0,
    IDENTITY_HTTP_URL: `http://127.0.0.1:${identity.httpPort}`,
    IDENTITY_GRPC_ADDR: `127.0.0.1:${identity.grpcPort}`,
    ...Object.fromEntries(
      ['CONTENT', 'PUBLISHING', 'INTEGRATIONS', 'INSIGHTS'].flatMap((s) => [
        [`${s}_HTTP_URL`, `http://127.0.0.1:${down}`],
        [`${s}_GRPC_ADDR`, `127.0.0.1:${down}`],
      ]),
    ),
    ...overrides,
  });
}
