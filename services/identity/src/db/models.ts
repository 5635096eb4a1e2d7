import { Schema, type Model } from 'mongoose';
import { defineModels, ROLES, type Role } from '@quire/runtime';
import { directoryModelDefinitions, type DirectoryModels } from './directory';

export interface UserDoc {
  _id: string;
  displayName: string;
  /** Lower-cased; unique. */
  email: string;
  photoURL?: string;
  createdAt: Date;
  /**
   * 'installation': the user an integration's installation acts as (installations.ts). It has
   * no e-mail (`email` holds a unique placeholder that is no address) and no membership.
   */
  kind?: 'installation';
}

export interface OrganizationDoc {
  _id: string;
  title: string;
  createdAt: Date;
  emailDomains: string[];
  hostname?: string;
  type: 'business' | 'community';
  useCase?: string;
  communityType?: string;
  /** The role members have where content inherits the organization's (GitBook: `read` unless set). Stored null before it had a default: read as DEFAULT_ORGANIZATION_ROLE. */
  defaultRole: Role | null;
  defaultContent?: { type: 'site'; site: string } | null;
  sso: boolean;
  ai: boolean;
  inviteLinks: boolean;
  plan: string;
  mergeRules: { type: 'rules'; rules: Array<{ rule: 'require_specific_reviewers'; users: string[] }>; requireNoNewBrokenLinks?: boolean } | { type: 'none' };
  logo?: string | null;
  createdBy: string;
}

export interface MembershipDoc {
  _id: string;
  organizationId: string;
  userId: string;
  role: Role | null;
  joinedAt: Date;
  lastSeenAt?: Date;
  sso: boolean;
  disabled: boolean;
  /**
   * Copies of the user's e-mail and name (name also lower-cased for sorting): the member
   * list filters and sorts by them in one indexed query on memberships (no $lookup).
   */
  email?: string;
  displayName?: string;
  sortName?: string;
}

export interface ApiTokenDoc {
  _id: string;
  userId: string;
  /** sha256 of the secret; the secret itself is never stored. */
  hash: string;
  label: string;
  /**
   * The one organization the token is valid in (issued by that organization's SSO); absent or
   * null for a token valid in all of the user's organizations.
   */
  organizationId?: string | null;
  createdAt: Date;
  revokedAt?: Date | null;
  /** When the token stops being valid (installation tokens); absent or null: never. */
  expiresAt?: Date | null;
}

/**
 * An integration's installation as identity knows it (its _id is the installation's id): the
 * user it acts as, and the role its scopes give it in its one organization. Kept once its tokens
 * are revoked (`revokedAt`), also for an installation that never had one, so that no token is
 * issued for it again.
 */
export interface InstallationIdentityDoc {
  _id: string;
  /** The installation's user (null for an installation revoked before it had one). */
  userId: string | null;
  organizationId: string;
  integrationName: string;
  /** The scopes its installer approved that its integration still asks for. */
  scopes: string[];
  role: Extract<Role, 'read' | 'edit'>;
  /** The spaces it covers: all of its organization's, or those of `spaceIds`. */
  spaceSelection: 'all' | 'selected';
  spaceIds: string[];
  /** The sites it covers: all of its organization's, or those of `siteIds`. */
  siteSelection: 'all' | 'selected';
  siteIds: string[];
  /** The version of this access the integrations service last gave (an older one is ignored). */
  accessVersion: number;
  createdAt: Date;
  updatedAt: Date;
  revokedAt: Date | null;
}

const roleField = { type: String, enum: [...ROLES, null], default: null };

/** An organization's default role when none was chosen: GitBook's (new members read). */
export const DEFAULT_ORGANIZATION_ROLE: Role = 'read';

const userSchema = new Schema<UserDoc>(
  {
    _id: String,
    displayName: { type: String, required: true },
    email: { type: String, required: true, lowercase: true, trim: true },
    photoURL: String,
    createdAt: { type: Date, required: true },
    kind: { type: String, enum: ['installation'] },
  },
  { versionKey: false },
);
userSchema.index({ email: 1 }, { unique: true });

const organizationSchema = new Schema<OrganizationDoc>(
  {
    _id: String,
    title: { type: String, required: true },
    createdAt: { type: Date, required: true },
    emailDomains: { type: [String], default: [] },
    hostname: String,
    type: { type: String, enum: ['business', 'community'], default: 'business' },
    useCase: String,
    communityType: String,
    defaultRole: { type: String, enum: [...ROLES, null], default: DEFAULT_ORGANIZATION_ROLE },
    defaultContent: { type: Schema.Types.Mixed, default: null },
    sso: { type: Boolean, default: false },
    ai: { type: Boolean, default: false },
    inviteLinks: { type: Boolean, default: false },
    plan: { type: String, default: 'free_2024' },
    mergeRules: { type: Schema.Types.Mixed, default: () => ({ type: 'rules', rules: [] }) },
    logo: { type: String, default: null },
    createdBy: { type: String, required: true },
  },
  { versionKey: false },
);

/**
 * Claims of organization hostnames, unique by _id. A partial unique index on
 * organizations.hostname would do, but FerretDB v1 has no partial indexes (design.md §5).
 */
export interface HostnameClaimDoc {
  _id: string;
  organizationId: string;
}
const hostnameClaimSchema = new Schema<HostnameClaimDoc>({ _id: String, organizationId: { type: String, required: true } }, { versionKey: false });

const membershipSchema = new Schema<MembershipDoc>(
  {
    _id: String,
    organizationId: { type: String, required: true },
    userId: { type: String, required: true },
    role: roleField,
    joinedAt: { type: Date, required: true },
    lastSeenAt: Date,
    sso: { type: Boolean, default: false },
    disabled: { type: Boolean, default: false },
    email: String,
    displayName: String,
    sortName: String,
  },
  { versionKey: false },
);
membershipSchema.index({ organizationId: 1, userId: 1 }, { unique: true });
membershipSchema.index({ userId: 1, joinedAt: -1, _id: -1 });
membershipSchema.index({ organizationId: 1, joinedAt: -1, _id: -1 });
membershipSchema.index({ organizationId: 1, lastSeenAt: -1, _id: -1 });
membershipSchema.index({ organizationId: 1, sortName: 1, _id: 1 });
membershipSchema.index({ organizationId: 1, role: 1, joinedAt: -1, _id: -1 });
membershipSchema.index({ organizationId: 1, role: 1, lastSeenAt: -1, _id: -1 });
membershipSchema.index({ organizationId: 1, role: 1, sortName: 1, _id: 1 });

const apiTokenSchema = new Schema<ApiTokenDoc>(
  {
    _id: String,
    userId: { type: String, required: true },
    hash: { type: String, required: true },
    label: { type: String, default: '' },
    organizationId: { type: String, default: null },
    createdAt: { type: Date, required: true },
    revokedAt: { type: Date, default: null },
    expiresAt: { type: Date, default: null },
  },
  { versionKey: false },
);
apiTokenSchema.index({ hash: 1 }, { unique: true });
apiTokenSchema.index({ userId: 1 });

const installationIdentitySchema = new Schema<InstallationIdentityDoc>(
  {
    _id: String,
    userId: { type: String, default: null },
    organizationId: { type: String, default: '' },
    integrationName: { type: String, default: '' },
    scopes: { type: [String], default: [] },
    role: { type: String, enum: ['read', 'edit'], default: 'read' },
    spaceSelection: { type: String, enum: ['all', 'selected'], default: 'selected' },
    spaceIds: { type: [String], default: [] },
    siteSelection: { type: String, enum: ['all', 'selected'], default: 'selected' },
    siteIds: { type: [String], default: [] },
    accessVersion: { type: Number, default: 0 },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    revokedAt: { type: Date, default: null },
  },
  { versionKey: false },
);
// Membership lookups find an installation by its user.
installationIdentitySchema.index({ userId: 1 });

export interface IdentityModels extends DirectoryModels {
  User: Model<UserDoc>;
  Organization: Model<OrganizationDoc>;
  Membership: Model<MembershipDoc>;
  ApiToken: Model<ApiTokenDoc>;
  HostnameClaim: Model<HostnameClaimDoc>;
  InstallationIdentity: Model<InstallationIdentityDoc>;
}

const identityModels = defineModels<IdentityModels>({
  User: [userSchema, 'users'],
  Organization: [organizationSchema, 'organizations'],
  Membership: [membershipSchema, 'memberships'],
  ApiToken: [apiTokenSchema, 'api_tokens'],
  HostnameClaim: [hostnameClaimSchema, 'hostname_claims'],
  InstallationIdentity: [installationIdentitySchema, 'installation_identities'],
  ...directoryModelDefinitions,
});

export const registerModels = identityModels.register;
export const modelsOf = identityModels.of;
