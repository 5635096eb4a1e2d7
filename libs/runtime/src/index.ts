export { loadConfig, baseConfigSchema, backendConfigSchema, type BaseConfig, type BackendConfig } from './config';
export { requestContext, currentRequestId, runWithContext, type RequestContext } from './context';
export { createLogger, type Logger } from './logger';
export { newId, hashSecret, newSecret } from './ids';
export {
  PRINCIPAL_HEADER,
  SIGNATURE_HEADER,
  REQUEST_ID_HEADER,
  INTERNAL_HEADERS,
  signPrincipal,
  verifyPrincipal,
  signCaller,
  verifyCaller,
  tokenCacheKey,
  type Principal,
} from './principal';
export { connectDatabase, databaseUri, defineModels, type Database, type ModelDefinitions } from './mongo';
export { createRedis, type RedisClient } from './redis';
export { withRedisLock, acquireRedisLock, releaseRedisLock, LockBusyError, type RedisLockOptions, type LockLogger } from './locks';
export { createGrpcServer, createGrpcClient, createHealthClient, isServing, grpcStatus, GrpcError, ClientError, type GrpcServerHandle } from './grpc';
export { runService, runMain, type ServiceHandle } from './lifecycle';
export { ROLES, roleAtLeast, strongestRole, roleToProto, roleFromProto, type Role } from './roles';
export { createServiceClients, type ServiceClients } from './clients';
export { checkExpression, evaluateExpression, expressionText, type Expression, type ExpressionCheck, type ExpressionRules } from './expressions';
