export { startIdentity } from './service';
export { withIdentityAdmin, bootstrapAdmin, addMemberWithToken } from './admin';
export { revokeToken, revokeTokenBySecret } from './domain/tokens';
export { addMembership } from './domain/organizations';
