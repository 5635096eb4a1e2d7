import { z } from 'zod';
import { backendConfigSchema } from '@quire/runtime';

const optionalUrl = z.preprocess((value) => (value === '' ? undefined : value), z.url().optional());
const optionalText = z.preprocess((value) => (value === '' ? undefined : value), z.string().optional());

/**
 * The insights service's settings: the backend ones plus its optional providers. Nothing here
 * is required: conversations are processed by the built-in NLP pipeline, and translation runs
 * fail with a clear reason until a translation provider is configured.
 */
export const insightsConfigSchema = backendConfigSchema.extend({
  /** An OpenAI-compatible API (base URL up to `/v1`) that improves issue extraction, cluster labels and summaries. */
  INSIGHTS_LLM_URL: optionalUrl,
  INSIGHTS_LLM_API_KEY: optionalText,
  INSIGHTS_LLM_MODEL: z.string().default('gpt-4o-mini'),
  /** Its embeddings model; empty: clustering keeps the built-in vectors. */
  INSIGHTS_EMBEDDINGS_MODEL: optionalText,
  /** Which translation provider runs use: none (runs fail, saying so), a LibreTranslate-compatible API or an OpenAI-compatible chat API. */
  TRANSLATION_PROVIDER: z.enum(['none', 'libretranslate', 'openai']).default('none'),
  /** Base URL of the provider (LibreTranslate: its root; OpenAI-compatible: up to `/v1`). */
  TRANSLATION_PROVIDER_URL: optionalUrl,
  TRANSLATION_PROVIDER_API_KEY: optionalText,
  /** The chat model of an OpenAI-compatible provider. */
  TRANSLATION_PROVIDER_MODEL: z.string().default('gpt-4o-mini'),
  /** How long one provider call may take. */
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  /** Conversations one organization may ingest per minute, across all processes (a batch counts each one); past it 429 with Retry-After. At least a full batch. */
  CONVERSATION_INGEST_PER_MINUTE: z.coerce.number().int().min(100).max(1_000_000).default(600),
  /** Conversation processings each process runs at once. */
  CONVERSATION_PROCESSING_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** Processings of one organization's conversations running at once, across all processes (its clustering runs one at a time anyway); the others wait their turn behind other organizations'. */
  CONVERSATION_PROCESSING_ACTIVE_PER_ORGANIZATION: z.coerce.number().int().min(1).max(64).default(2),
  /** How long an organization's clustering lock lives past its holder's last renewal (a crashed process's holds it this long). */
  CONVERSATION_CLUSTER_LOCK_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
  /** How often each process queues again the conversations waiting without a job (those waiting for over twice this long). */
  CONVERSATION_SWEEP_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(30_000),
  /** Translation runs each process runs at once. */
  TRANSLATION_RUN_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Translation runs of one organization under way at once, across all processes; its others wait their turn behind other organizations'. */
  TRANSLATION_RUNS_ACTIVE_PER_ORGANIZATION: z.coerce.number().int().min(1).max(64).default(1),
});
export type InsightsConfig = z.infer<typeof insightsConfigSchema>;
