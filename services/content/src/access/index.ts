/*
 * Access: who may do what on which space or collection. Roles and their rules, the
 * caller's standing in an organization (identity), explicit grants to users and teams, the
 * visibility of an organization's content, the space counts identity shows, and the
 * permission routes. Imports only the kernel.
 */
export {
  loadSpaceAccess,
  loadCollectionAccess,
  requireSpaceRole,
  requireCollectionRole,
  requireMember,
  type SpaceAccess,
  type CollectionAccess,
} from './access';
export { grantModelDefinitions } from './grant-store';
export { subscribeGrantEvents } from './grant-events';
export { getStanding, getStandings, nonMember, type MemberStanding } from './membership';
export { loadMembers, requireOrganizationMembers } from './organization-subjects';
export { permissionRoutes } from './permission-routes';
export { COLLECTION_ACTION_ROLES, SPACE_ACTION_ROLES, collectionPermissions, isRole, spacePermissions } from './roles';
export { countSpaces, type SpaceCountSubject } from './space-counts';
export { chainIn, collectionLevelIn, collectionRoleIn, loadOrgView, spaceLevelIn, spaceRoleIn, visibleSpacesFilter, type OrgView } from './visibility';
