export { repoRoot, freePort, onPath, portIsFree, waitFor } from './process';
export { startFerretdbOn, startMongo, type MongoHandle } from './mongo';
export { ensureRedis, type RedisHandle } from './redis';
export { dropOrphanedDatabases, dropStackDatabase, dropStackDatabaseSync, stackDatabaseName } from './postgres';
export { startJaeger, type JaegerHandle } from './jaeger';
