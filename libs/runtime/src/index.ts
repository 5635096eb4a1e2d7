export { loadConfig, baseConfigSchema, backendConfigSchema, envBoolean, filesBaseUrl, type BaseConfig, type BackendConfig } from './config';
export { requestContext, currentRequestId, runWithContext, type RequestContext } from './context';
export { createLogger, type Logger } from './logger';
export { newId, idOfKey, hashSecret, newSecret } from './ids';
export {
  PRINCIPAL_HEADER,
  SIGNATURE_HEADER,
  REQUEST_ID_HEADER,
  REQUEST_ID_PATTERN,
  INTERNAL_HEADERS,
  CLIENT_ADDRESS_HEADER,
  signPrincipal,
  verifyPrincipal,
  signCaller,
  verifyCaller,
  tokenCacheKey,
  type Principal,
} from './principal';
export { tokenScope, outsideTokenScope, installationScopes } from './token-scope';
export { reaches, reachedIds, reachFromProto, type InstallationReach } from './installation-reach';
export { isDuplicateKeyError, retryOnDuplicateKey } from './duplicate-keys';
export { connectDatabase, databaseUri, defineModels, type Database, type ModelDefinitions } from './mongo';
export { storedJson, StoredJsonError, type StoredJson, type StoredJsonOptions } from './stored-json';
export { createRedis, type RedisClient } from './redis';
export { withRedisLock, acquireRedisLock, releaseRedisLock, LockBusyError, type RedisLockOptions, type LockLogger } from './locks';
export {
  createGrpcServer,
  createGrpcClient,
  createHealthClient,
  grpcTarget,
  isServing,
  grpcStatus,
  GrpcError,
  ClientError,
  checkBatch,
  requireCallingService,
  MAX_GRPC_BATCH,
  type GrpcServerHandle,
} from './grpc';
export { runService, runMain, MAX_HEADER_BYTES, MAX_URL_BYTES, type ServiceHandle } from './lifecycle';
export { ROLES, roleAtLeast, strongestRole, roleToProto, roleFromProto, type Role } from './roles';
export { createServiceClients, type ServiceClients } from './clients';
export { checkExpression, evaluateExpression, expressionText, type Expression, type ExpressionCheck, type ExpressionRules } from './expressions';
export { isUnavailableError } from './faults';
export { nulPath, nulFieldName, NUL_MESSAGE } from './nul';
export { ensureFerretDbGinIndexes, indexedFields } from './ferretdb-indexes';
export { findByIds } from './find-by-ids';
export { DocumentCache, documentCacheOf, serviceCollection } from './document-cache';
export { enableWriteSerialization, serializeWrites, isFerretDb, type WriteSerializationMode } from './write-serialization';
export {
  addressRange,
  checkEgressHost,
  isAllowedAddress,
  resolveEgressAddresses,
  EgressLookupError,
  EgressRefusedError,
  type AddressLookup,
  type EgressPolicy,
} from './egress';
export { checkEgressUrl, checkEgressUrlForm, EgressError, egressFetch, egressRequest, type EgressRequest, type EgressResponse } from './egress-fetch';
export {
  InvalidatedCache,
  byDocumentIds,
  byDocumentTags,
  documentTag,
  MembershipCache,
  membershipCacheOf,
  membershipFromProto,
  createTokenCache,
  publishInvalidation,
  invalidationChannel,
  type CacheInvalidation,
  type CachedMembership,
} from './membership-cache';
export { LruCache, remembered } from './lru';
export { SHARED_ANSWER_HEADER, decodeSharedAnswer, encodeSharedAnswer, sharedAnswerSchema, type SharedAnswer, type SharedView } from './shared-answer';
export { createCaches, declareCache, type CacheDeclaration, type CacheDeclarations, type Caches } from './caches';
export { seededRandom } from './random';
export { counterOf, gaugeOf, histogramOf, DURATION_BUCKETS, type GaugeReadings, type MetricsRegistry } from './metrics';
export { annotateSpan, continueTrace, traceCarrier, inSpan, markSpanFailed, type SpanOptions } from './tracing';
