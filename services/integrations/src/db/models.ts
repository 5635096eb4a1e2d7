import { Schema, type Model } from 'mongoose';
import { z } from 'zod';
import { defineModels, storedJson } from '@quire/runtime';

/*
 * The integrations service's own database: the catalogue (integrations and their files),
 * installations (on an organization, and on its spaces and sites) and the events delivered
 * to them. Free-form JSON the integration defines (configuration schemas, blocks, a
 * configuration) is stored as JSON text: it may hold keys such as `$ref` that stored keys
 * may not have (design.md §5).
 */

export const INTEGRATION_VISIBILITIES = ['public', 'private', 'unlisted'] as const;
export const INTEGRATION_TARGETS = ['all', 'site', 'space', 'organization'] as const;
export const INTEGRATION_RUNTIMES = ['v1', 'v2'] as const;

export interface IntegrationDoc {
  /** The integration's name (`^[a-zA-Z0-9-_.]+$`): its id in every address. */
  _id: string;
  /** The organization that published it: its admins republish, unpublish and read its events. */
  ownerOrganizationId: string;
  /** 1 on the first publish, +1 on each republish. */
  version: number;
  runtime: (typeof INTEGRATION_RUNTIMES)[number];
  title: string;
  description: string;
  summary?: string | null;
  visibility: (typeof INTEGRATION_VISIBILITIES)[number];
  target: (typeof INTEGRATION_TARGETS)[number];
  scopes: string[];
  categories: string[];
  /** JSON text of the `blocks` array. */
  blocks: string;
  /** The block domains (`urlUnfurl` hosts), kept apart for the `blockDomain` filter. */
  blockDomains: string[];
  /** Whether `blocks` is not empty (the list's `blocks` filter). */
  hasBlocks: boolean;
  /** JSON text of the `contentSources` array. */
  contentSources: string;
  /** Whether `contentSources` is not empty (the list's `contentSources` filter). */
  hasContentSources: boolean;
  externalLinks: Array<{ url: string; label: string }>;
  /** JSON text of `{account?, space?, site?}` configuration JSON Schemas. */
  configurations: string;
  contentSecurityPolicy?: string | null;
  /** The published script (a Workers-style ES module). */
  script: string;
  /** The secrets map, encrypted at rest (domain/secrets): never answered. */
  secrets: string;
  /** Key of the HMAC-SHA256 signature of every delivery, encrypted at rest. */
  signingSecret: string;
  /** File ids (IntegrationFile) of the icon and the preview images. */
  iconFileId?: string | null;
  previewImageFileIds: string[];
  /** Dev mode: events go to this tunnel instead of the runtime; only the owner's installations unless `all`. */
  dev?: { tunnelUrl: string; all: boolean } | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface IntegrationFileDoc {
  _id: string;
  integrationName: string;
  contentType: string;
  size: number;
  data: Buffer;
  createdAt: Date;
}

export interface InstallationDoc {
  _id: string;
  integrationName: string;
  organizationId: string;
  status: 'active' | 'pending' | 'paused';
  spaceSelection: 'all' | 'selected';
  siteSelection: 'all' | 'selected';
  /** JSON text of the account configuration, valid against the integration's `account` schema. */
  configuration: string;
  externalIds: string[];
  /**
   * The scopes an admin of the installing organization approved (the integration's when it was
   * installed): its tokens act with those the integration still asks for (installation-access.ts).
   * Absent on installations made before approvals were kept: their integration's scopes.
   */
  scopes?: string[];
  /** +1 on every change of what its tokens may act with, so that identity keeps the latest (installation-access.ts). */
  accessVersion?: number;
  createdAt: Date;
  updatedAt: Date;
}

/** An installation on one space or one site of its organization. */
export interface TargetInstallationDoc {
  _id: string;
  installationId: string;
  integrationName: string;
  organizationId: string;
  kind: 'space' | 'site';
  /** The space or site id. */
  targetId: string;
  status: 'active' | 'pending' | 'paused';
  configuration: string;
  externalIds: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface TraceLogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  timestamp: Date;
}

/** One event for one installation: delivered at least once, recorded once (its id is the event id). */
export interface IntegrationEventDoc {
  /** The event id (`payload.eventId`): deliveries are idempotent by it. */
  _id: string;
  integrationName: string;
  installationId: string;
  organizationId: string;
  type: string;
  /** JSON text of the payload as GitBook's Event schemas shape it. */
  payload: string;
  status: 'pending' | 'success' | 'failed';
  attempts: number;
  logs: TraceLogLine[];
  /** Where the last attempt went: the integration's script, or its dev tunnel. */
  deliveredTo?: 'runtime' | 'tunnel' | null;
  /** When the outcome (success or failed) was recorded. */
  finishedAt?: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The JSON text fields of an integration, read and written only through these. */
export const integrationJson = {
  blocks: storedJson('Integration.blocks', z.array(z.unknown()), { absent: [] }),
  contentSources: storedJson('Integration.contentSources', z.array(z.unknown()), { absent: [] }),
  configurations: storedJson('Integration.configurations', z.record(z.string(), z.unknown()), { absent: {} }),
};

/** The configuration of an installation, on an organization or on a space or site: an object (anything else reads as none). */
export const installationConfigurationJson = storedJson('Installation.configuration', z.record(z.string(), z.unknown()), { fallback: {} });

/** An event's payload: GitBook's `Event`, by its common fields (the type's own follow). */
export const eventPayloadJson = storedJson('IntegrationEvent.payload', z.looseObject({ eventId: z.string(), type: z.string() }));

const nullableString = { type: String, default: null };

const integrationSchema = new Schema<IntegrationDoc>(
  {
    _id: String,
    ownerOrganizationId: { type: String, required: true },
    version: { type: Number, required: true },
    runtime: { type: String, required: true },
    title: { type: String, required: true },
    description: { type: String, default: '' },
    summary: nullableString,
    visibility: { type: String, required: true },
    target: { type: String, required: true },
    scopes: { type: [String], default: [] },
    categories: { type: [String], default: [] },
    blocks: { type: String, default: '[]' },
    blockDomains: { type: [String], default: [] },
    hasBlocks: { type: Boolean, default: false },
    contentSources: { type: String, default: '[]' },
    hasContentSources: { type: Boolean, default: false },
    externalLinks: { type: [{ _id: false, url: String, label: String }], default: [] },
    configurations: { type: String, default: '{}' },
    contentSecurityPolicy: nullableString,
    script: { type: String, default: '' },
    secrets: { type: String, required: true },
    signingSecret: { type: String, required: true },
    iconFileId: nullableString,
    previewImageFileIds: { type: [String], default: [] },
    dev: { type: Schema.Types.Mixed, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
integrationSchema.index({ ownerOrganizationId: 1, _id: 1 });
integrationSchema.index({ visibility: 1, _id: 1 });
// The catalogue's equality filters (category, scope, block domain, target, has blocks / content sources).
integrationSchema.index({ categories: 1 });
integrationSchema.index({ scopes: 1 });
integrationSchema.index({ blockDomains: 1 });
integrationSchema.index({ target: 1 });
integrationSchema.index({ hasBlocks: 1 });
integrationSchema.index({ hasContentSources: 1 });

const fileSchema = new Schema<IntegrationFileDoc>(
  {
    _id: String,
    integrationName: { type: String, required: true },
    contentType: { type: String, required: true },
    size: { type: Number, required: true },
    data: { type: Buffer, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
fileSchema.index({ integrationName: 1 });

const installationSchema = new Schema<InstallationDoc>(
  {
    _id: String,
    integrationName: { type: String, required: true },
    organizationId: { type: String, required: true },
    status: { type: String, required: true },
    spaceSelection: { type: String, default: 'selected' },
    siteSelection: { type: String, default: 'selected' },
    configuration: { type: String, default: '{}' },
    externalIds: { type: [String], default: [] },
    scopes: { type: [String], default: undefined },
    accessVersion: { type: Number, default: 0 },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// One installation per organization and integration.
installationSchema.index({ integrationName: 1, organizationId: 1 }, { unique: true });
installationSchema.index({ integrationName: 1, _id: 1 });
installationSchema.index({ organizationId: 1 });
installationSchema.index({ integrationName: 1, externalIds: 1 });

const targetInstallationSchema = new Schema<TargetInstallationDoc>(
  {
    _id: String,
    installationId: { type: String, required: true },
    integrationName: { type: String, required: true },
    organizationId: { type: String, required: true },
    kind: { type: String, required: true },
    targetId: { type: String, required: true },
    status: { type: String, required: true },
    configuration: { type: String, default: '{}' },
    externalIds: { type: [String], default: [] },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
targetInstallationSchema.index({ installationId: 1, kind: 1, targetId: 1 }, { unique: true });
targetInstallationSchema.index({ integrationName: 1, kind: 1, _id: 1 });
targetInstallationSchema.index({ kind: 1, targetId: 1 });
targetInstallationSchema.index({ installationId: 1, kind: 1, _id: 1 });

const eventSchema = new Schema<IntegrationEventDoc>(
  {
    _id: String,
    integrationName: { type: String, required: true },
    installationId: { type: String, required: true },
    organizationId: { type: String, required: true },
    type: { type: String, required: true },
    payload: { type: String, required: true },
    status: { type: String, required: true },
    attempts: { type: Number, default: 0 },
    logs: { type: [{ _id: false, level: String, message: String, timestamp: Date }], default: [] },
    deliveredTo: nullableString,
    finishedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
eventSchema.index({ integrationName: 1, createdAt: -1, _id: -1 });
eventSchema.index({ installationId: 1 });
// Deliveries still owed, requeued when the service starts (a job lost with Redis, or never added).
eventSchema.index({ status: 1, createdAt: 1 });

export interface IntegrationsModels {
  Integration: Model<IntegrationDoc>;
  IntegrationFile: Model<IntegrationFileDoc>;
  Installation: Model<InstallationDoc>;
  TargetInstallation: Model<TargetInstallationDoc>;
  IntegrationEvent: Model<IntegrationEventDoc>;
}

const integrationsModels = defineModels<IntegrationsModels>({
  Integration: [integrationSchema, 'integrations'],
  IntegrationFile: [fileSchema, 'integration_files'],
  Installation: [installationSchema, 'installations'],
  TargetInstallation: [targetInstallationSchema, 'target_installations'],
  IntegrationEvent: [eventSchema, 'integration_events'],
});

export const registerModels = integrationsModels.register;
export const modelsOf = integrationsModels.of;
