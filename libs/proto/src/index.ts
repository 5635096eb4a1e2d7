// Public surface of the generated contracts: one namespace per service package.
export * as identity from './gen/identity/v1/identity';
export * as content from './gen/content/v1/content';
export * as publishing from './gen/publishing/v1/publishing';
export * as integrations from './gen/integrations/v1/integrations';
export * as insights from './gen/insights/v1/insights';
