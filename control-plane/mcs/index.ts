// The MCS merge (issue 40, DESIGN §13), pure: exports from every cluster → each member's import Work.
export { derivedServiceName, importedSliceName } from "./derived-name.ts";
export { clustersetStatus, importManifests } from "./import-manifests.ts";
export { type ImportWork, importOfWorkKey, importWorkKey, importWorks, sliceWorkKey } from "./import-works.ts";
export { MAX_SLICE_ENDPOINTS } from "./imported-slices.ts";
export { type ConflictReason, type MergeConflict, type MergedImport, type MergeOptions, mergeExports } from "./merge.ts";
