export { startIdentity } from './service';
export { withIdentityAdmin, bootstrapAdmin, addMemberWithToken } from './admin';
export { revokeToken } from './domain/tokens';
export { addMembership } from './domain/organizations';
