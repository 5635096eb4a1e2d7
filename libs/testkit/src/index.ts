export { testEnvironment, testBackendConfig, cleanupTestEnvironment, type TestEnvironment } from './environment';
export { startTestStack, type TestAccount, type TestOrganization, type TestStack } from './stack';
export { sharedTestStack } from './shared-stack';
export { apiClient, type ApiClient, type ApiResponse } from './api';
export { checkAnswer, checkAnswersOf } from './contract';
export { assertMatchesOpenApi, openApiErrors } from './openapi';
export { expectOk, expectError, expectEvery, successBody } from './expect';
export { waitFor } from '@quire/datastore';
export { isolatedGit } from './git';
