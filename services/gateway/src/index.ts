export { startGateway } from './service';
export { gatewayConfigSchema, type GatewayConfig } from './config';
export { serviceFor, ROUTE_TABLE } from './routes';
export { mergeApiDocument, type ApiDocument, type ApiDocumentPart } from './openapi';
