export { configDir, ensurePrivateDir } from "./paths.js";
export type { ConfigData, ConfigStore, Profile, SavedCursor } from "./store.js";
