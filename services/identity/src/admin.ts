import { connectDatabase, createLogger, createRedis, type BaseConfig, type Role } from '@quire/runtime';
import { modelsOf, registerModels } from './db/models';
import type { IdentityContext } from './domain/context';
import { addMembership, createOrganization } from './domain/organizations';
import { issueToken } from './domain/tokens';
import { findOrCreateUser } from './domain/users';

/**
 * Operator actions that need no API caller (design.md §4: bootstrap without a UI).
 * They work directly on identity's database, with or without the stack running.
 */
export async function withIdentityAdmin<T>(config: BaseConfig, action: (ctx: IdentityContext) => Promise<T>): Promise<T> {
  const admin = await openIdentityAdmin(config);
  try {
    return await action(admin.ctx);
  } finally {
    await admin.close();
  }
}

/** The context of withIdentityAdmin kept open for many actions (a local stack's supervisor); `close` when done. */
export async function openIdentityAdmin(config: BaseConfig): Promise<{ ctx: IdentityContext; close: () => Promise<void> }> {
  const logger = createLogger('identity-admin', 'warn');
  const redis = createRedis(config, logger);
  try {
    const db = await connectDatabase('identity', config, logger, registerModels, {
      redis,
      writeSerialization: config.WRITE_SERIALIZATION,
      ferretdbPostgresUrl: config.QUIRE_FERRETDB_POSTGRES_URL,
    });
    const ctx = { models: modelsOf(db), redis, config: { ...config, HTTP_PORT: 0, GRPC_PORT: 0, GRPC_MAX_CONNECTION_AGE_MS: 60_000 }, logger };
    return {
      ctx,
      close: async () => {
        redis.disconnect();
        await db.close();
      },
    };
  } catch (error) {
    redis.disconnect();
    throw error;
  }
}

/** A new user (or the existing one with this e-mail) who is admin of a new organization. */
export async function bootstrapAdmin(ctx: IdentityContext, input: { email: string; organizationTitle: string; displayName?: string }) {
  const user = await findOrCreateUser(ctx, input);
  const { organization } = await createOrganization(ctx, user._id, { title: input.organizationTitle });
  const { token } = await issueToken(ctx, user._id, 'bootstrap');
  return { userId: user._id, organizationId: organization._id, token };
}

/** Creates the user if missing, gives them `role` in the organization, issues a token. */
export async function addMemberWithToken(ctx: IdentityContext, input: { organizationId: string; email: string; role: Role | null }) {
  const organization = await ctx.models.Organization.findById(input.organizationId).lean();
  if (!organization) throw new Error(`organization ${input.organizationId} not found`);
  const user = await findOrCreateUser(ctx, { email: input.email });
  await addMembership(ctx, organization._id, user._id, input.role);
  const { token } = await issueToken(ctx, user._id, 'cli');
  return { userId: user._id, token };
}
