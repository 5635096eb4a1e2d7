export { HttpError, httpError, sendError, ServiceError } from './errors';
export {
  clientsOf,
  MalformedAnswerError,
  type Clients,
  type CallOptions,
  type IdentityClient,
  type ContentClient,
  type PublishingClient,
  type InsightsClient,
  type ServiceSpace,
  type ServiceSite,
  type ServiceOrganization,
  type ServiceMember,
  type SpaceObject,
  type SiteObject,
  type OrganizationObject,
  type MemberObject,
} from './service-clients';
export { parseInput, zodMessage } from './validate';
export { decodeImage, sniffImage, isImageDataUrl, imageId, sendImage, type DecodedImage, type StoredImage } from './images';
export {
  listQuerySchema,
  orderSchema,
  encodeCursor,
  decodeCursor,
  keysetPage,
  memoryPage,
  byKey,
  type MemoryOrder,
  containsText,
  listEnvelope,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type ListQuery,
  type ListEnvelope,
  type KeysetPage,
} from './pagination';
export { createServiceApp, finishServiceApp, type RawBodyRequest, type ServiceAppOptions } from './app';
export { idSchema, booleanQuery, httpUrlSchema, standaloneMergeRulesSchema, spaceMergeRulesSchema, richTextDocumentSchema } from './schemas';
export { startBackendService, type ServiceDeps, type RunningService } from './service';
export { apiUrl, slugify } from './urls';
export { presentUser } from './presenters';
export { redactSecretQuery } from './log-redaction';
export { route, routerOf, Reply, created, noContent, type Route, type RouteAccess, type RouteInput, type HttpMethod } from './routes';
export { openApiPart, openApiPath } from './openapi';
export { findOrgAccess, loadOrgAccess, orgRolesOf, isOrgAdmin, requireOrgAdmin, type OrgAccess, type OrgAccessDeps } from './org-access';
export { signedUrl, verifySignedUrl, revisionFileUrl, verifyRevisionFileUrl } from './signed-urls';
export { createBudget, createRateLimiter } from './rate-limit';
export { Body, acceptsGzip, gzipTag, matchesEtag, sendBody, sendCached, COMPRESS_FROM } from './caching';
