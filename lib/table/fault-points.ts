/**
 * Named points between the steps of a commit and of each maintenance job;
 * tests throw there to crash the step (`test/table/crash.test.ts`).
 */

/** The points, in the order each job passes them. */
export const TableFaultPoint = {
  /** Data files are stored; no manifest names them. */
  appendAfterDataFiles: 'table:append:after-data-files',
  /** The manifest is stored; no manifest list names it. */
  appendAfterManifest: 'table:append:after-manifest',
  /** The manifest list is stored; the metadata file is not created. */
  appendAfterManifestList: 'table:append:after-manifest-list',
  /** The metadata file is created (committed); the hint is not written. */
  afterCommit: 'table:after-commit',
  /** Compaction: the merged file is stored; nothing names it. */
  compactAfterDataFile: 'table:compact:after-data-file',
  /** Compaction: its manifest and manifest list are stored; not committed. */
  compactAfterManifests: 'table:compact:after-manifests',
  /** History retention: the files written back are stored; nothing names them. */
  retainAfterDataFiles: 'table:retain:after-data-files',
  /** History retention: its manifest and manifest list are stored; not committed. */
  retainAfterManifests: 'table:retain:after-manifests',
  /** Expiry: the metadata without the expired snapshots is committed; no file deleted. */
  expireAfterCommit: 'table:expire:after-commit',
  /** Expiry: some of the unreferenced files are deleted. */
  expireDuringDeletes: 'table:expire:during-deletes',
  /** Orphan removal: references and listing read; nothing deleted. */
  orphansAfterScan: 'table:orphans:after-scan',
  /** Orphan removal: the first orphan is deleted. */
  orphansDuringDeletes: 'table:orphans:during-deletes',
} as const;
export type TableFaultPoint = (typeof TableFaultPoint)[keyof typeof TableFaultPoint];

/** A hook called at each point with the table's name; it may throw to crash there. */
export type TableFaultHook = (point: TableFaultPoint, table: string) => Promise<void> | void;
