/** Where the embedded Chroma server keeps the skill index unless a config says otherwise (src/loop/run-config.ts skillIndex.dataDir). */
export const DEFAULT_SKILL_INDEX_DIR = "runs/.chroma";
