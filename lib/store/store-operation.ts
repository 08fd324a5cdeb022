/** The operations of the `ObjectStore` port, as values, for decorators that count or fault them. */
export const StoreOperation = {
  putIfAbsent: 'putIfAbsent',
  get: 'get',
  getStream: 'getStream',
  list: 'list',
  delete: 'delete',
} as const;

/** One operation of the `ObjectStore` port. */
export type StoreOperation = (typeof StoreOperation)[keyof typeof StoreOperation];
