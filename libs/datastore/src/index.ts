export { repoRoot, freePort, waitFor } from './process';
export { startMongo, type MongoHandle } from './mongo';
export { ensureRedis, type RedisHandle } from './redis';
