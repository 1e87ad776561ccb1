export { configDir, ensurePrivateDir, sandboxDataDir, stateDir } from "./paths.js";
export { checkApiKey, checkProfileName, maskKey, normalizeBaseUrl } from "./profiles.js";
export type {
  ConfigData,
  ConfigStore,
  PendingJob,
  Profile,
  SavedCursor,
  StoredOrganization,
} from "./store.js";
