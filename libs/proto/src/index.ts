// Public surface of the generated contracts: one namespace per service package.
import path from 'node:path';

export * as identity from './gen/identity/v1/identity';
export * as content from './gen/content/v1/content';
export * as publishing from './gen/publishing/v1/publishing';
export * as integrations from './gen/integrations/v1/integrations';
export * as insights from './gen/insights/v1/insights';

/**
 * The .proto contracts themselves (copied into dist/protos at build, so they ship with the
 * package): gRPC server reflection describes the services from them.
 */
export const PROTOS_DIR = path.join(__dirname, 'protos');
export const PROTO_FILES = ['identity', 'content', 'publishing', 'integrations', 'insights'].map((name) => `${name}/v1/${name}.proto`);
