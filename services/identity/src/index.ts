export { startIdentity } from './service';
export { identityRoutes } from './http';
export { withIdentityAdmin, openIdentityAdmin, bootstrapAdmin, addMemberWithToken } from './admin';
export { revokeToken, revokeTokenBySecret } from './domain/tokens';
export { addMembership } from './domain/organizations';
