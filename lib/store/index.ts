/**
 * The object store subsystem. The contract every adapter keeps is written
 * once, in `object-store.ts`: atomic create-if-absent (`'created'` for exactly
 * one writer, `'exists'` for the rest, the winner's bytes whole), `get` whole
 * or `undefined`, `list` ascending under a prefix after `startAfter`,
 * idempotent `delete`, and only shardwal errors thrown.
 *
 * Adapters: `S3ObjectStore` (production), `FsObjectStore` (local stack),
 * `MemoryObjectStore` (tests). Decorators: `InstrumentedObjectStore` (request
 * counts for the cost model), `FaultyObjectStore` (simulation),
 * `LazyObjectStore` (built on first use: no S3 client at a cold start).
 * `test/store/contract.ts` holds the suite every adapter must pass.
 */
export * from './faulty-store.js';
export * from './fs-store.js';
export * from './instrumented-store.js';
export * from './lazy-store.js';
export * from './memory-store.js';
export type * from './object-store.js';
export * from './s3-store.js';
export * from './store-operation.js';
