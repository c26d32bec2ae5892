/** --animations (src/cli/inspect.ts): which rollout GIFs the written page embeds (src/app/inspect-report.ts `build`). */
export const ANIMATIONS = ["last", "all", "none"] as const;
export type Animations = (typeof ANIMATIONS)[number];
