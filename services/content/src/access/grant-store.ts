import { Schema, type Model } from 'mongoose';
import { ROLES, type ModelDefinitions, type Role } from '@quire/runtime';
import type { ContentModels } from '../kernel';

/** An explicit role for a user or a team on a space or a collection. */
export interface GrantDoc {
  _id: string;
  organizationId: string;
  resourceType: 'space' | 'collection';
  resourceId: string;
  subjectType: 'user' | 'team';
  subjectId: string;
  role: Role;
  createdAt: Date;
}

const grantSchema = new Schema<GrantDoc>(
  {
    _id: String,
    organizationId: { type: String, required: true },
    resourceType: { type: String, enum: ['space', 'collection'], required: true },
    resourceId: { type: String, required: true },
    subjectType: { type: String, enum: ['user', 'team'], required: true },
    subjectId: { type: String, required: true },
    role: { type: String, enum: ROLES, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);

// One grant per subject and resource (ids are unique across spaces and collections).
grantSchema.index({ resourceId: 1, subjectType: 1, subjectId: 1 }, { unique: true });
// Permission lists (keyset on createdAt, _id) and the grants of a member/team in an org.
grantSchema.index({ resourceId: 1, subjectType: 1, createdAt: 1, _id: 1 });
grantSchema.index({ organizationId: 1, subjectType: 1, subjectId: 1 });

declare module '../kernel' {
  interface ContentModels {
    Grant: Model<GrantDoc>;
  }
}

export const grantModelDefinitions: ModelDefinitions<Pick<ContentModels, 'Grant'>> = {
  Grant: [grantSchema, 'grants'],
};
