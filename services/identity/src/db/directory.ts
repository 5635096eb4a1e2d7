import { Schema, type Model } from 'mongoose';
import { ROLES, type ModelDefinitions, type Role } from '@quire/runtime';

/** Teams, team memberships and SAML providers: the organization's directory. */

export interface TeamDoc {
  _id: string;
  organizationId: string;
  title: string;
  /** Lower-cased title: the list's sort key (teams are listed alphabetically). */
  sortTitle: string;
  createdAt: Date;
}

export const TEAM_ROLES = ['owner', 'member'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

export interface TeamMembershipDoc {
  _id: string;
  organizationId: string;
  teamId: string;
  userId: string;
  role: TeamRole;
  createdAt: Date;
}

export interface SamlProviderDoc {
  _id: string;
  organizationId: string;
  label: string;
  entityID?: string;
  /** The identity provider's signing certificate, as given (PEM or bare base64). */
  certificate?: string;
  ssoURL?: string;
  defaultTeamId?: string | null;
  defaultRole: Role | null;
  createdAt: Date;
}

const teamSchema = new Schema<TeamDoc>(
  {
    _id: String,
    organizationId: { type: String, required: true },
    title: { type: String, required: true },
    sortTitle: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
teamSchema.index({ organizationId: 1, sortTitle: 1, _id: 1 });

const teamMembershipSchema = new Schema<TeamMembershipDoc>(
  {
    _id: String,
    organizationId: { type: String, required: true },
    teamId: { type: String, required: true },
    userId: { type: String, required: true },
    role: { type: String, enum: TEAM_ROLES, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
teamMembershipSchema.index({ teamId: 1, userId: 1 }, { unique: true });
teamMembershipSchema.index({ teamId: 1, createdAt: -1, _id: -1 });
teamMembershipSchema.index({ organizationId: 1, userId: 1, createdAt: -1, _id: -1 });
teamMembershipSchema.index({ organizationId: 1, userId: 1, role: 1 });

const samlProviderSchema = new Schema<SamlProviderDoc>(
  {
    _id: String,
    organizationId: { type: String, required: true },
    label: { type: String, required: true },
    entityID: String,
    certificate: String,
    ssoURL: String,
    defaultTeamId: { type: String, default: null },
    defaultRole: { type: String, enum: [...ROLES, null], default: null },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
samlProviderSchema.index({ organizationId: 1, createdAt: -1, _id: -1 });
samlProviderSchema.index({ organizationId: 1, defaultTeamId: 1 });

export interface DirectoryModels {
  Team: Model<TeamDoc>;
  TeamMembership: Model<TeamMembershipDoc>;
  SamlProvider: Model<SamlProviderDoc>;
}

export const directoryModelDefinitions: ModelDefinitions<DirectoryModels> = {
  Team: [teamSchema, 'teams'],
  TeamMembership: [teamMembershipSchema, 'team_memberships'],
  SamlProvider: [samlProviderSchema, 'saml_providers'],
};
